package exthost

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startRunner runs runner.mjs alone under node with the protocol pipes,
// so tests can speak to it as the host does.
func startRunner(t *testing.T) (toRunner *os.File, fromRunner *bufio.Reader, stderr *bytes.Buffer, cmd *exec.Cmd) {
	t.Helper()
	node, err := findNode("", os.Getenv)
	if err != nil {
		t.Skip(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(node, "--input-type=module", "--eval", runnerScript)
	stderr = new(bytes.Buffer)
	cmd.Stderr = stderr
	cmd.ExtraFiles = []*os.File{inR, outW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	t.Cleanup(func() {
		inW.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		outR.Close()
	})
	fromRunner = bufio.NewReaderSize(outR, 1<<20)
	if line, err := fromRunner.ReadString('\n'); err != nil || !strings.Contains(line, `"ready"`) {
		t.Fatalf("ready: %q %v", line, err)
	}
	return inW, fromRunner, stderr, cmd
}

// A long line arrives in many small chunks; the runner must handle it in
// linear time (it used to rescan and copy the whole buffer per chunk).
func TestRunnerLongLine(t *testing.T) {
	in, out, _, _ := startRunner(t)
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"nope","params":{"pad":"` + strings.Repeat("x", 48<<20) + `"}}` + "\n")
	start := time.Now()
	go func() {
		for b := line; len(b) > 0; {
			n := min(len(b), 16<<10)
			if _, err := in.Write(b[:n]); err != nil {
				return
			}
			b = b[n:]
		}
	}()
	got, err := out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var m message
	if err := json.Unmarshal([]byte(got), &m); err != nil || m.Error == nil || m.Error.Code != codeMethodNotFound {
		t.Fatalf("answer %q %v", got, err)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("a 48 MiB line took %s", d)
	}
}

// A line over the 64 MiB cap makes the runner stop with a clear message
// instead of buffering without limit.
func TestRunnerLineCap(t *testing.T) {
	in, out, stderr, cmd := startRunner(t)
	go func() {
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range 80 {
			if _, err := in.Write(chunk); err != nil {
				return
			}
		}
		in.Close()
	}()
	_, _ = io.Copy(io.Discard, out)
	err := cmd.Wait()
	var xe *exec.ExitError
	if !errors.As(err, &xe) || xe.ExitCode() != exitProtocol {
		t.Fatalf("runner ended with %v, want exit code %d", err, exitProtocol)
	}
	if !strings.Contains(stderr.String(), "larger than 64 MiB") {
		t.Fatalf("stderr: %q", stderr.String())
	}
}
