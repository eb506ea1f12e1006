package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
)

// Argument mistakes name what is wrong: an unknown command gets the
// closest commands of the whole tree, a missing or extra argument is named
// from the command's usage line.
func TestArgumentErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"extension", "instal"}, "Error: unknown command \"instal\" for \"spirit extension\"\nHint: did you mean \"spirit extension install\"?\n"},
		{[]string{"registry", "bild"}, "Error: unknown command \"bild\" for \"spirit registry\"\nHint: did you mean \"spirit registry build\"?\n"},
		{[]string{"instal"}, "Error: unknown command \"instal\" for \"spirit\"\nHint: did you mean \"spirit extension install\" or \"spirit extension marketplace install\"?\n"},
		{[]string{"extension", "remove"}, "Error: missing ID\nHint: usage: spirit extension remove ID…\n"},
		{[]string{"extension", "info", "a", "b"}, "Error: unexpected argument \"b\"\nHint: usage: spirit extension info ID\n"},
		{[]string{"extension", "settings", "set", "x"}, "Error: missing KEY\nHint: usage: spirit extension settings set ID KEY VALUE\n"},
	}
	for _, tt := range tests {
		ios, _, out, errOut := iostreams.Test()
		f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now}
		code := Run(t.Context(), f, tt.args)
		if code != ExitUsage || errOut.String() != tt.want || out.Len() != 0 {
			t.Errorf("spirit %v: exit %d\nstderr %q\nwant   %q", tt.args, code, errOut.String(), tt.want)
		}
	}
	// The bare root still shows help.
	ios, _, out, _ := iostreams.Test()
	if code := Run(t.Context(), &Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now}, []string{}); code != ExitOK || out.Len() == 0 {
		t.Errorf("bare spirit: exit %d, %d bytes of help", code, out.Len())
	}
}

// install keeps the apps' message for a broken package.json and says
// where it breaks in the hint, as validate does.
func TestInstallBrokenJSONSaysWhere(t *testing.T) {
	pkg := t.TempDir()
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte("{\n  \"name\": \"x\",,\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	ios, _, _, errOut := iostreams.Test()
	f := &Factory{IO: ios, Getenv: func(k string) string { return map[string]string{"SPIRIT_AGENT_DATA_DIR": data}[k] }, Now: time.Now}
	code := Run(t.Context(), f, []string{"extension", "install", pkg})
	want := "Error: The extension package.json is not valid JSON.\nHint: " + pkg + ": line 2, column 15: invalid character ',' looking for beginning of object key string; spirit extension validate " + pkg + " lists every problem\n"
	if code != ExitFailure || errOut.String() != want {
		t.Errorf("exit %d, stderr %q\nwant %q", code, errOut.String(), want)
	}
}

// A mistyped flag gets a did-you-mean, from the command's flags and the
// global ones, as a mistyped command does.
func TestUnknownFlagSuggestion(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantHint string
	}{
		{name: "global flag", args: []string{"extension", "list", "--jsn"}, wantHint: "did you mean --json?"},
		{name: "own flag", args: []string{"extension", "list", "--lng"}, wantHint: "did you mean --long?"},
		{name: "with a value", args: []string{"extension", "list", "--registy=x"}, wantHint: "did you mean --registry?"},
		{name: "nothing close", args: []string{"extension", "list", "--zzzzzz"}, wantHint: "see the flags with: spirit extension list --help"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, errOut := iostreams.Test()
			e := &cliEnv{data: t.TempDir(), now: time.Now()}
			if code := Run(t.Context(), e.factory(ios, ""), tt.args); code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitUsage, errOut)
			}
			if !strings.Contains(errOut.String(), "Error: unknown flag: --") || !strings.Contains(errOut.String(), "Hint: "+tt.wantHint+"\n") {
				t.Errorf("stderr:\n%s", errOut)
			}
		})
	}
}
