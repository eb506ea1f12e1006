package cli

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/paths"
)

// TestLogsFollow follows a log through appends, a partial line and a
// rotation, reading what -f prints as it comes.
func TestLogsFollow(t *testing.T) {
	data := t.TempDir()
	p := paths.New(data, paths.HostCLI)
	log := p.LogFile("@acme/ext")
	if err := os.MkdirAll(filepath.Dir(log), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, []byte("old 1\nold 2\nold 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ios, _, _, _ := iostreams.Test()
	pr, pw := io.Pipe()
	ios.Out = pw
	env := map[string]string{"SPIRIT_AGENT_DATA_DIR": data}
	f := &Factory{IO: ios, Getenv: func(k string) string { return env[k] }, Now: time.Now}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- runLogs(ctx, &LogsOptions{f: f, ID: "@acme/ext", Follow: true, Lines: 2, poll: 10 * time.Millisecond})
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	next := func(want string) {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("no line %q: %v", want, lines.Err())
		}
		if got := lines.Text(); got != want {
			t.Fatalf("line = %q, want %q", got, want)
		}
	}
	next("old 2")
	next("old 3")
	appendTo(t, log, "new 1\nhalf ")
	next("new 1")
	appendTo(t, log, "done\n")
	next("half done")
	if err := os.Rename(log, log+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, []byte("rotated, and longer than what was read before it\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	next("rotated, and longer than what was read before it")
	cancel()
	for lines.Scan() {
		t.Errorf("extra line %q", lines.Text())
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, name, s string) {
	t.Helper()
	fh, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
