package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHostileTextIsEscaped runs every command that prints text from a
// marketplace index, a package or a registry entry against values crafted
// to drive a terminal (CSI, OSC 8 links, OSC 52 clipboard writes, title
// changes, CR + erase line, bidi overrides) or a CI log (lines starting
// with a GitHub Actions workflow command). The human output shows each
// control character escaped, and is pinned by golden files.
func TestHostileTextIsEscaped(t *testing.T) {
	fx, err := filepath.Abs(filepath.Join("testdata", "hostile"))
	if err != nil {
		t.Fatal(err)
	}
	reg := filepath.Join(fx, "registry")
	e := &cliEnv{data: t.TempDir(), now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	if code, out, errOut := e.run(t, reg, false, "", "extension", "marketplace", "install", "evil.outdated", "--version", "1.0.0"); code != 0 {
		t.Fatalf("install: %d\n%s\n%s", code, out, errOut)
	}
	npm := httptest.NewServer(http.NotFoundHandler())
	defer npm.Close()
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(repo, os.DirFS(filepath.Join(fx, "repo"))); err != nil {
		t.Fatal(err)
	}
	evilID := "evil.id"

	tests := []struct {
		name  string
		tty   bool
		input string
		args  []string
	}{
		{"install", false, "", []string{"extension", "install", filepath.Join(fx, "installed-pkg")}},
		{"list", false, "", []string{"extension", "list"}},
		{"list-tty", true, "", []string{"extension", "list"}},
		{"list-long", false, "", []string{"extension", "list", "--long"}},
		{"info", false, "", []string{"extension", "info", "hostile-ext"}},
		{"marketplace-list", false, "", []string{"extension", "marketplace", "list"}},
		{"marketplace-list-tty", true, "", []string{"extension", "marketplace", "list"}},
		{"marketplace-list-long", false, "", []string{"extension", "marketplace", "list", "--long"}},
		{"marketplace-search", false, "", []string{"extension", "marketplace", "search", "evil"}},
		{"marketplace-detail", false, "", []string{"extension", "marketplace", "detail", evilID}},
		{"marketplace-readme", false, "", []string{"extension", "marketplace", "readme", evilID}},
		{"install-consent-prompt", true, "n\n", []string{"extension", "marketplace", "install", evilID}},
		{"outdated", false, "", []string{"extension", "outdated"}},
		{"outdated-tty", true, "", []string{"extension", "outdated"}},
		{"validate", false, "", []string{"extension", "validate", filepath.Join(fx, "validate-pkg")}},
		{"registry-validate", false, "", []string{"registry", "validate", "--root", repo}},
		{"registry-build", false, "", []string{"registry", "build", "--root", repo, "--npm-registry", npm.URL}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := e.run(t, reg, tt.tty, tt.input, tt.args...)
			for name, s := range map[string]string{"stdout": out, "stderr": errOut} {
				checkTerminalSafe(t, name, s)
			}
			got := "exit " + string(rune('0'+code)) + "\n--- stdout\n" + out + "--- stderr\n" + errOut
			got = strings.NewReplacer(fx, "$FX", repo, "$REPO", e.data, "$DATA", npm.URL, "$NPM").Replace(got)
			golden(t, filepath.Join("testdata", "hostile", "golden", tt.name+".txt"), []byte(got))
		})
	}
}

// checkTerminalSafe fails when s holds a control character other than
// newline and tab, or a line that GitHub Actions reads as a command.
func checkTerminalSafe(t *testing.T, name, s string) {
	t.Helper()
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x202e {
			t.Errorf("%s holds a raw %U:\n%q", name, r, s)
			return
		}
	}
	for line := range strings.SplitSeq(s, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") {
			t.Errorf("%s has a workflow command line %q", name, line)
		}
	}
}
