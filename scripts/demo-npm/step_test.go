package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/testutil/ptytest"
)

// The demo's headings (scripts/demo-step.sh, which make demo's script
// sources) are bold on a terminal, and plain through a pipe, with NO_COLOR
// or on a dumb terminal.
func TestDemoHeadings(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	const script = `source scripts/demo-step.sh; step "Install it" spirit extension install ./x`
	const text = "== Install it"
	tests := []struct {
		name string
		tty  bool
		env  []string
		bold bool
	}{
		{name: "terminal", tty: true, env: []string{"TERM=xterm", "NO_COLOR="}, bold: true},
		{name: "pipe", env: []string{"TERM=xterm", "NO_COLOR="}},
		{name: "terminal with NO_COLOR", tty: true, env: []string{"TERM=xterm", "NO_COLOR=1"}},
		{name: "dumb terminal", tty: true, env: []string{"TERM=dumb", "NO_COLOR="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir = "../.."
			cmd.Env = append(os.Environ(), tt.env...)
			var out []byte
			if tt.tty {
				p, err := ptytest.Open(80, 24)
				if errors.Is(err, ptytest.ErrUnsupported) {
					t.Skip("no pseudo-terminal helper on this system (ptytest opens one on Linux only)")
				}
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if err := p.Start(cmd); err != nil {
					t.Fatal(err)
				}
				if out, err = p.Wait(10 * time.Second); err != nil {
					t.Fatal(err)
				}
			} else {
				var err error
				if out, err = cmd.Output(); err != nil {
					t.Fatal(err)
				}
			}
			got := string(out)
			if !strings.Contains(got, "$ spirit extension install ./x") {
				t.Fatalf("no command line in %q", got)
			}
			if bold := strings.Contains(got, "\x1b[1m"+text+"\x1b[0m"); bold != tt.bold || (!tt.bold && strings.Contains(got, "\x1b")) {
				t.Errorf("bold %v, want %v: %q", bold, tt.bold, got)
			}
		})
	}
}
