package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRegistryBuildSite: `registry build --site DIR` builds the index and
// then its web site in one step.
func TestRegistryBuildSite(t *testing.T) {
	root, srv := fixtureRepo(t, "upstream-demo")
	f, outputs := registryFactory(t)
	site := filepath.Join(t.TempDir(), "site")
	if code := Run(t.Context(), f, []string{"registry", "build", "--root", root, "--npm-registry", srv.URL, "--site", site}); code != ExitOK {
		_, e := outputs()
		t.Fatalf("build exit %d: %s", code, e)
	}
	stdout, stderr := outputs()
	if !strings.Contains(stderr, "built 1 extension:") || !strings.Contains(stderr, "site of 1 extension:") ||
		strings.TrimSpace(stdout) != filepath.Join(site, "index.html") {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
	page := readFile(t, filepath.Join(site, "x", "spiritagent.system-message-demo.html"))
	if !strings.Contains(page, "spirit extension marketplace install spiritagent.system-message-demo") {
		t.Errorf("extension page:\n%s", page)
	}
	if _, err := os.Stat(filepath.Join(site, "index.json")); err != nil {
		t.Error(err)
	}
	if code := Run(t.Context(), f, []string{"registry", "build", "--root", root, "--check", "--site", site}); code != ExitUsage {
		t.Errorf("--check --site: exit %d", code)
	}
}
