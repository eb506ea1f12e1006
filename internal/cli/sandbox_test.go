package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spiritagents/spirit/paths"
)

// TestHiddenPathsResolvesLinks checks that a data directory reached through
// a link is hidden under both names, and a relative one is made absolute.
func TestHiddenPathsResolvesLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real-data")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "data")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	f := &Factory{Getenv: func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return "/run/user/1000"
		}
		return ""
	}}
	got := hiddenPaths(f, paths.New(link, paths.HostCLI))
	realResolved, _ := filepath.EvalSymlinks(real)
	for _, want := range []string{link, realResolved, "/run/user/1000"} {
		if !slices.Contains(got, want) {
			t.Errorf("hiddenPaths = %q, lacks %s", got, want)
		}
	}
	t.Chdir(dir)
	got = hiddenPaths(f, paths.New("data", paths.HostCLI))
	if !slices.Contains(got, link) {
		t.Errorf("a relative data directory: hiddenPaths = %q, lacks %s", got, link)
	}
}
