package cli

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/fetch/fetchtest"
)

// interruptible starts the real spirit binary with args and returns it
// with its stderr; the test interrupts it and waits.
type interruptible struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
}

func startSpirit(t *testing.T, bin string, env []string, args ...string) *interruptible {
	t.Helper()
	p := &interruptible{cmd: exec.Command(bin, args...)}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill() })
	return p
}

// interrupt sends SIGINT, as a terminal's Ctrl-C does, and returns the
// exit status, failing when spirit does not stop within 20 s.
func (p *interruptible) interrupt(t *testing.T) int {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no SIGINT to send to another process (a Ctrl-C event reaches only a console's own processes)")
	}
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		p.cmd.Process.Kill()
		t.Fatalf("spirit did not stop within 20 s of SIGINT; stderr:\n%s", p.stderr.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// spiritCommand is the real spirit command: the test binary, which
// testscript.Main (TestMain) puts on PATH under the name "spirit" and runs
// as cli.Main.
func spiritCommand(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("spirit")
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// filesUnder lists the regular files below dir, relative to it.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, rel)
		}
		return nil
	})
	return files
}

// Ctrl-C during a download that trickles: spirit stops the transfer,
// removes the partial file (in the temporary folder for a URL install, in
// the tarball cache for a marketplace install), prints "Interrupted",
// exits 130 and installs nothing.
func TestE2EInterruptDownload(t *testing.T) {
	bin := spiritCommand(t)
	// started gets a value once the server has sent a few bytes of a body.
	started := make(chan struct{}, 4)
	trickle := fetchtest.Trickle(20*time.Millisecond, 100_000)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		trickle(&countingWriter{ResponseWriter: w, at: 5, reached: started}, r)
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}

	// A folder marketplace whose one version's tarball is the slow server.
	reg := t.TempDir()
	writeJSONFile(t, filepath.Join(reg, "catalog.json"), map[string]any{
		"schemaVersion": 1,
		"items": []any{map[string]any{
			"extensionId": "slow.ext", "packageName": "slow-ext", "status": "listed", "featured": false,
			"defaultVersion": "1.0.0", "defaultChannel": "stable", "defaultReviewStatus": "verified",
			"detailPath": "extensions/slow.ext/detail.json", "displayName": "Slow", "description": "d",
			"keywords": []string{}, "supportedHosts": []string{"cli", "desktop"}, "requestedCapabilities": []string{},
		}},
	})
	writeJSONFile(t, filepath.Join(reg, "extensions", "slow.ext", "detail.json"), map[string]any{
		"schemaVersion": 1, "extensionId": "slow.ext", "packageName": "slow-ext", "status": "listed",
		"featured": false, "defaultVersion": "1.0.0", "defaultReviewStatus": "verified",
		"versions": []any{map[string]any{
			"version": "1.0.0", "channel": "stable", "reviewStatus": "verified", "displayName": "Slow",
			"description": "d", "supportedHosts": []string{"cli", "desktop"},
			"tarballUrl": srv.URL + "/slow-ext-1.0.0.tgz",
			"integrity":  "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUWBw+8Jv9O/1ln1Jg==",
		}},
	})

	for _, tt := range []struct {
		name string
		args []string
	}{
		{"url", []string{"extension", "install", srv.URL + "/slow-ext-1.0.0.tgz"}},
		{"marketplace", []string{"extension", "marketplace", "install", "slow.ext"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data, tmp := t.TempDir(), t.TempDir()
			p := startSpirit(t, bin, []string{"SPIRIT_AGENT_DATA_DIR=" + data, "SPIRIT_REGISTRY=" + reg,
				"SSL_CERT_FILE=" + ca, "TMPDIR=" + tmp, "HOME=" + t.TempDir()}, tt.args...)
			select {
			case <-started:
			case <-time.After(30 * time.Second):
				t.Fatalf("the download never started; stderr:\n%s", p.stderr.String())
			}
			code := p.interrupt(t)
			if code != ExitInterrupted || strings.TrimSpace(p.stderr.String()) != "Interrupted" {
				t.Errorf("exit %d, stderr:\n%s", code, p.stderr.String())
			}
			if left := filesUnder(t, tmp); len(left) != 0 {
				t.Errorf("left in the temporary folder: %v", left)
			}
			for _, f := range filesUnder(t, data) {
				if f != filepath.Join("extensions", "cli", ".spirit", "lock") && !strings.HasPrefix(f, filepath.Join("extensions", "cli", ".spirit", "cache", "catalog")) {
					t.Errorf("left in the data directory: %s", f)
				}
			}
		})
	}
}

// Ctrl-C during a tool call: the tool's abort signal fires (its handler
// writes a file), spirit prints "Interrupted" and exits 130, and the
// extension's Node process is gone.
func TestE2EInterruptToolCall(t *testing.T) {
	p, marks, pid := startAbortableCall(t)
	code := p.interrupt(t)
	if code != ExitInterrupted || !strings.HasSuffix(p.stderr.String(), "\nInterrupted\n") {
		t.Errorf("exit %d, stderr:\n%s", code, p.stderr.String())
	}
	if b, err := os.ReadFile(filepath.Join(marks, "aborted")); err != nil || string(b) != "yes" {
		t.Errorf("the abort handler did not run: %v", err)
	}
	if alive(pid) {
		t.Errorf("the extension's Node process %d is still running", pid)
	}
}

// startAbortableCall installs an extension whose tool waits until it is
// aborted, then writes the file "aborted" in marks and returns; it calls the
// tool with the real binary and returns once the tool runs, with marks and
// the extension's Node PID.
func startAbortableCall(t *testing.T) (*interruptible, string, int) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is needed: ", err)
	}
	bin := spiritCommand(t)
	pkg := t.TempDir()
	writeJSONFile(t, filepath.Join(pkg, "package.json"), map[string]any{
		"name": "abortable", "version": "1.0.0", "main": "index.mjs",
		"spiritExtension": map[string]any{
			"displayName": "Abortable", "supportedHosts": []string{"cli", "desktop"},
			"requestedCapabilities": []string{"tool-definitions", "tool-execution"},
			"contributes": map[string]any{"tools": []any{map[string]any{
				"name": "wait", "description": "Waits until aborted.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"dir": map[string]any{"type": "string"}}},
			}}},
		},
	})
	script := `import { writeFileSync } from 'node:fs';
export function activate() {
  return { tools: { wait: ({ arguments: args, signal }) => new Promise((resolve) => {
    signal.addEventListener('abort', () => { writeFileSync(args.dir + '/aborted', 'yes'); resolve('aborted'); });
    writeFileSync(args.dir + '/started', String(process.pid));
  }) } };
}
`
	if err := os.WriteFile(filepath.Join(pkg, "index.mjs"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	data, marks := t.TempDir(), t.TempDir()
	env := []string{"SPIRIT_AGENT_DATA_DIR=" + data, "HOME=" + t.TempDir()}
	install := exec.Command(bin, "extension", "install", pkg)
	install.Env = append(os.Environ(), env...)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	args, _ := json.Marshal(map[string]string{"dir": marks})
	// Without the OS sandbox, so the handler may write into marks.
	p := startSpirit(t, bin, env, "extension", "call", "abortable/wait", "--args", string(args), "--sandbox", "off")
	var pid int
	for i := 0; ; i++ {
		if b, err := os.ReadFile(filepath.Join(marks, "started")); err == nil && len(b) > 0 {
			pid, _ = strconv.Atoi(string(b))
			break
		}
		if i == 600 {
			t.Fatalf("the tool never started; stderr:\n%s", p.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return p, marks, pid
}

// Ctrl-C in a terminal under `npx spirit` reaches spirit twice at once: from
// the terminal (spirit is in the foreground process group) and from the
// launcher that passes it on. That is one interrupt: the tool's abort
// handler runs and spirit stops its extension and exits 130, instead of
// dying of the second signal in the middle of that.
func TestE2EInterruptTwiceAtOnce(t *testing.T) {
	p, marks, _ := startAbortableCall(t)
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	code := p.interrupt(t)
	if code != ExitInterrupted || !strings.HasSuffix(p.stderr.String(), "\nInterrupted\n") {
		t.Errorf("exit %d (%v), stderr:\n%s", code, p.cmd.ProcessState, p.stderr.String())
	}
	if b, err := os.ReadFile(filepath.Join(marks, "aborted")); err != nil || string(b) != "yes" {
		t.Errorf("the abort handler did not run: %v", err)
	}
}

// countingWriter sends on reached when the at-th write has been flushed.
type countingWriter struct {
	http.ResponseWriter
	n, at   int
	reached chan<- struct{}
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.n++
	return w.ResponseWriter.Write(b)
}

func (w *countingWriter) Flush() {
	w.ResponseWriter.(http.Flusher).Flush()
	if w.n == w.at {
		select {
		case w.reached <- struct{}{}:
		default:
		}
	}
}
