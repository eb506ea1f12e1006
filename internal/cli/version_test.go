package cli

import (
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/build"
	"github.com/spiritagents/spirit/internal/iostreams"
)

// runVersion prints one line, or the exact JSON object with every field
// (an unknown one is ""), on a terminal or not.
func TestRunVersion(t *testing.T) {
	full := build.Info{Version: "v1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-01-02T15:04:05Z"}
	proxy := build.Info{Version: "v1.2.3"}
	tests := []struct {
		name string
		info build.Info
		json bool
		want string
	}{
		{"text", full, false, "spirit v1.2.3 (commit 0123456789ab, 2026-01-02T15:04:05Z)\n"},
		{"text, version only", proxy, false, "spirit v1.2.3\n"},
		{"json", full, true, "{\n  \"version\": \"v1.2.3\",\n  \"commit\": \"0123456789abcdef0123456789abcdef01234567\",\n  \"date\": \"2026-01-02T15:04:05Z\"\n}\n"},
		{"json, version only", proxy, true, "{\n  \"version\": \"v1.2.3\",\n  \"commit\": \"\",\n  \"date\": \"\"\n}\n"},
	}
	for _, tt := range tests {
		for _, tty := range []bool{false, true} {
			ios, _, out, errOut := iostreams.Test()
			ios.SetTTY(tty)
			f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now}
			f.Global.JSON = tt.json
			if err := runVersion(&VersionOptions{f: f, Info: tt.info}); err != nil {
				t.Fatalf("%s (tty %v): %v", tt.name, tty, err)
			}
			if out.String() != tt.want || errOut.Len() != 0 {
				t.Errorf("%s (tty %v): stdout %q, stderr %q; want %q", tt.name, tty, out, errOut, tt.want)
			}
		}
	}
}

// `spirit --version` is `spirit version`: the same line, and --json too.
func TestVersionFlag(t *testing.T) {
	pairs := []struct{ flag, cmd []string }{
		{[]string{"--version"}, []string{"version"}},
		{[]string{"--version", "--json"}, []string{"version", "--json"}},
		{[]string{"--json", "--version"}, []string{"version", "--json"}},
		{[]string{"--version", "--jq", ".version"}, []string{"version", "--jq", ".version"}},
	}
	for _, p := range pairs {
		got, want := runArgs(t, p.flag...), runArgs(t, p.cmd...)
		if got != want || want == "" {
			t.Errorf("spirit %q printed %q, want %q as spirit %q does", p.flag, got, want, p.cmd)
		}
	}
}

func runArgs(t *testing.T, args ...string) string {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now}
	if code := Run(t.Context(), f, args); code != ExitOK {
		t.Fatalf("spirit %q: exit %d, stderr %q", args, code, errOut)
	}
	return out.String()
}
