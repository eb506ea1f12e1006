package cli

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
)

// --jq filters the --json output: strings print as text (escaped by
// termtext; see jq_hostile_index.txtar), other values as indented JSON, a bad program is a usage error before any work,
// and text output is refused with a hint.
func TestJQ(t *testing.T) {
	pkg := filepath.Join("..", "..", "testdata", "runtime", "kitchen")
	broken := filepath.Join("..", "..", "testdata", "examples", "broken-ext")
	tests := []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"extension", "validate", pkg, "--jq", ".[0].id"}, ExitOK, "@fixture/kitchen\n", ""},
		{[]string{"extension", "validate", pkg, "--jq", ".[0] | {id, valid}"}, ExitOK, "{\n  \"id\": \"@fixture/kitchen\",\n  \"valid\": true\n}\n", ""},
		{[]string{"extension", "validate", pkg, "--jq", ".[] | .problems | length"}, ExitOK, "0\n", ""},
		{[]string{"extension", "validate", broken, "--jq", ".[0].valid"}, ExitProblems, "false\n", ""},
		{[]string{"version", "--jq", ".version | length > 0"}, ExitOK, "true\n", ""},
		{[]string{"version", "--jq", ".x |"}, ExitUsage, "", "Error: --jq \".x |\": unexpected EOF\nHint: run with --help for usage\n"},
		{[]string{"version", "--jq", ".[0]"}, ExitFailure, "", "{\"error\":\"--jq: expected an array but got: object ({\\\"commit\\\":\\\"\\\",\\\"date\\\":\\\"\\\",\\\"v ...})\",\"exitCode\":1}\n"},
	}
	for _, tt := range tests {
		ios, _, out, errOut := iostreams.Test()
		f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now}
		code := Run(t.Context(), f, tt.args)
		if code != tt.code || out.String() != tt.out || errOut.String() != tt.err {
			t.Errorf("spirit %q: exit %d\nstdout %q\nstderr %q\nwant exit %d, %q, %q", tt.args, code, out, errOut, tt.code, tt.out, tt.err)
		}
	}
}
