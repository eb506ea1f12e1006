package exthost

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadErrorLocation checks that load and activation failures carry the
// place in the package that Node reports, and the log path.
func TestLoadErrorLocation(t *testing.T) {
	p := installFixtures(t, "load-fails", "activate-throws", "caps-both")
	// caps-both gets a syntax error in a module its main imports.
	dir := filepath.Join(p.ExtensionsDir(), "pkg-Y2Fwcy1ib3Ro")
	main := findMain(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "broken.mjs"), []byte("export const a = 1;\nexport const b = (;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, append([]byte("import './broken.mjs';\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newTestHost(t, p, nil)
	tests := []struct{ tool, want string }{
		{"load-fails/hello", "index.mjs:1:7: Error: cannot load me"},
		{"activate-throws/hello", "index.mjs:2:9: Error: activation refused"},
		{"caps-both/hello", "broken.mjs:2:19: SyntaxError: Unexpected token ';'"},
	}
	for _, tt := range tests {
		_, err := call(t, h, tt.tool, "")
		var xe *ExtensionError
		if !errors.As(err, &xe) {
			t.Fatalf("%s: error = %v, want an *ExtensionError", tt.tool, err)
		}
		if !strings.HasPrefix(xe.Location, tt.want) {
			t.Errorf("%s: Location = %q, want %q…", tt.tool, xe.Location, tt.want)
		}
		if xe.LogFile != p.LogFile(xe.ExtensionID) {
			t.Errorf("%s: LogFile = %q", tt.tool, xe.LogFile)
		}
	}
}

func findMain(t *testing.T, dir string) string {
	t.Helper()
	for _, n := range []string{"index.mjs", "index.js"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return filepath.Join(dir, n)
		}
	}
	t.Fatalf("no main in %s", dir)
	return ""
}
