package cli

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
)

// TAB completes installed ids, tool names, settings keys and the ids of
// the cached marketplace catalog; a hostile id from an index never
// reaches the shell.
func TestCompletion(t *testing.T) {
	data := t.TempDir()
	reg, err := filepath.Abs(filepath.Join("testdata", "hostile", "registry"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SPIRIT_AGENT_DATA_DIR": data, "SPIRIT_REGISTRY": reg}
	run := func(args ...string) string {
		ios, _, out, errOut := iostreams.Test()
		f := &Factory{IO: ios, Getenv: func(k string) string { return env[k] }, Now: time.Now, HTTPClient: func() *http.Client { return &http.Client{} }}
		if code := Run(t.Context(), f, args); code != ExitOK {
			t.Fatalf("spirit %v: exit %d: %s", args, code, errOut)
		}
		return out.String()
	}
	run("extension", "install", filepath.Join("..", "..", "testdata", "runtime", "kitchen"))
	run("extension", "marketplace", "list") // fills the cache

	tests := []struct {
		args []string
		want string
	}{
		{[]string{"extension", "remove", ""}, "@fixture/kitchen\n:4\n"},
		{[]string{"extension", "call", "@fixture/kitchen/ec"}, "@fixture/kitchen/echo\n:4\n"},
		{[]string{"extension", "settings", "get", "@fixture/kitchen", "gr"}, "greeting\n:4\n"},
		{[]string{"extension", "settings", "get", "@fixture/kitchen", "greeting", ""}, ":4\n"},
		{[]string{"extension", "marketplace", "install", ""}, "evil.id\nevil.outdated\n:4\n"},
	}
	for _, tt := range tests {
		got := run(append([]string{"__complete"}, tt.args...)...)
		if got != tt.want {
			t.Errorf("complete %q = %q, want %q", strings.Join(tt.args, " "), got, tt.want)
		}
	}
}
