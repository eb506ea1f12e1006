package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
)

// On a terminal the table is coloured when colour is on, and not when
// NO_COLOR turned it off.
func TestListColourOnTerminal(t *testing.T) {
	data, _ := listFixture(t)
	for _, color := range []bool{true, false} {
		ios, _, out, _ := iostreams.Test()
		ios.SetTTY(true)
		ios.SetColorEnabled(color)
		ios.SetTerminalWidth(80)
		e := &cliEnv{data: data, now: time.Now()}
		if err := runList(t.Context(), &ListOptions{f: e.factory(ios, "")}); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if color != strings.Contains(got, "\x1b[") {
			t.Errorf("colour %v: output %q", color, got)
		}
		if color && (!strings.Contains(got, "\x1b[31mbroken\x1b[0m") || !strings.Contains(got, "\x1b[90mdisabled\x1b[0m")) {
			t.Errorf("statuses not coloured: %q", got)
		}
	}
}

// fakePager writes a shell script that copies its input to a file, and
// returns the script and the file.
func fakePager(t *testing.T) (script, copied string) {
	t.Helper()
	dir := t.TempDir()
	script, copied = filepath.Join(dir, "pager.sh"), filepath.Join(dir, "paged.txt")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat > '"+copied+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, copied
}

// Long outputs go through the pager on a terminal (SPIRIT_PAGER before
// PAGER), and never through it on a pipe or for --json.
func TestPager(t *testing.T) {
	data, _ := listFixture(t)
	script, copied := fakePager(t)
	tests := []struct {
		name    string
		tty     bool
		json    bool
		env     map[string]string
		paged   bool
		command func(f *Factory) error
	}{
		{name: "list on a terminal with PAGER", tty: true, env: map[string]string{"PAGER": script}, paged: true},
		{name: "SPIRIT_PAGER before PAGER", tty: true, env: map[string]string{"PAGER": "false", "SPIRIT_PAGER": script}, paged: true},
		{name: "info", tty: true, env: map[string]string{"PAGER": script}, paged: true, command: func(f *Factory) error {
			return runInfo(&InfoOptions{f: f, ID: "alpha-weather"})
		}},
		{name: "pipe", tty: false, env: map[string]string{"PAGER": script}},
		{name: "json", tty: true, json: true, env: map[string]string{"PAGER": script}},
		{name: "cat means none", tty: true, env: map[string]string{"PAGER": script, "SPIRIT_PAGER": "cat"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_ = os.Remove(copied)
			ios, _, out, _ := iostreams.Test()
			ios.SetTTY(tt.tty)
			ios.SetPagerEnabled(true)
			stdout := ios.Out
			e := &cliEnv{data: data, now: time.Now()}
			f := e.factory(ios, "")
			getenv := f.Getenv
			f.Getenv = func(k string) string {
				if v, ok := tt.env[k]; ok {
					return v
				}
				return getenv(k)
			}
			f.Global.JSON = tt.json
			run := tt.command
			if run == nil {
				run = func(f *Factory) error { return runList(t.Context(), &ListOptions{f: f}) }
			}
			if err := run(f); err != nil {
				t.Fatal(err)
			}
			paged, err := os.ReadFile(copied)
			if tt.paged {
				if err != nil || !strings.Contains(string(paged), "alpha-weather") || out.Len() != 0 {
					t.Fatalf("not paged: %v\npager got %q\nstdout %q", err, paged, out)
				}
				if ios.Out != stdout {
					t.Fatal("stdout not restored after the pager")
				}
				return
			}
			if err == nil || !strings.Contains(out.String(), "alpha-weather") {
				t.Fatalf("paged: pager got %q, stdout %q", paged, out)
			}
		})
	}
}

func TestPagerCommand(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := iostreams.PagerCommand(env(nil)); got != "less -FRX" {
		t.Errorf("default: %q", got)
	}
	if got := iostreams.PagerCommand(env(map[string]string{"PAGER": "more"})); got != "more" {
		t.Errorf("PAGER: %q", got)
	}
	if got := iostreams.PagerCommand(env(map[string]string{"PAGER": "more", "SPIRIT_PAGER": "most -s"})); got != "most -s" {
		t.Errorf("SPIRIT_PAGER: %q", got)
	}
}

// A pager the user quits before the end (here one that reads nothing) is
// not an error, and a pager that does not exist prints without one.
func TestPagerQuitOrMissing(t *testing.T) {
	data, _ := listFixture(t)
	for _, pager := range []string{"true", filepath.Join(t.TempDir(), "no-such-pager")} {
		ios, _, out, errOut := iostreams.Test()
		ios.SetTTY(true)
		ios.SetPagerEnabled(true)
		e := &cliEnv{data: data, now: time.Now()}
		f := e.factory(ios, "")
		f.Getenv = func(k string) string {
			if k == "PAGER" {
				return pager
			}
			return e.factory(ios, "").Getenv(k)
		}
		if err := runList(t.Context(), &ListOptions{f: f, Long: true}); err != nil {
			t.Fatalf("pager %s: %v", pager, err)
		}
		if pager != "true" && (!strings.Contains(out.String(), "alpha-weather") || !strings.Contains(errOut.String(), "printing without a pager")) {
			t.Errorf("missing pager: stdout %q stderr %q", out, errOut)
		}
	}
}
