package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

const secret = "//registry.npmjs.org/:_authToken=npm_S3CRET"

// linkOut replaces name (inside dir) with a symbolic link to target.
func linkOut(t *testing.T, dir, name, target string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func checkRefused(t *testing.T, what string, text string, err error) {
	t.Helper()
	t.Logf("%s: %v", what, err)
	if !errors.Is(err, ErrOutsideRegistry) {
		t.Errorf("%s: want ErrOutsideRegistry, got %v", what, err)
	}
	if strings.Contains(text, "S3CRET") || err != nil && strings.Contains(err.Error(), "S3CRET") {
		t.Errorf("%s: the secret leaked: %q %v", what, text, err)
	}
}

// TestFolderRegistryLinksOut: a README or detail.json of a folder registry
// that is a symbolic link to a file outside the folder (an .npmrc) is an
// error naming the entry, never read.
func TestFolderRegistryLinksOut(t *testing.T) {
	base := tempdir.New(t)
	npmrc := filepath.Join(base, ".npmrc")
	if err := os.WriteFile(npmrc, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "registry")
	writeFixtureRegistry(t, root)
	linkOut(t, root, "extensions/fixture.hello/README.md", npmrc)
	linkOut(t, root, "extensions/fixture.unverified/detail.json", "../../../.npmrc")
	ctx := context.Background()
	c := newClient(t, root, tempdir.New(t), nil)

	text, _, err := c.Readme(ctx, "fixture.hello")
	checkRefused(t, "readme", text, err)
	if err != nil && !strings.Contains(err.Error(), "README.md") {
		t.Errorf("the error does not name the entry: %v", err)
	}
	_, _, err = c.Detail(ctx, "fixture.unverified")
	checkRefused(t, "detail", "", err)

	// A link that stays inside the folder is followed.
	linkOut(t, root, "extensions/fixture.hello/README.md", "../fixture.unverified/README.md")
	if text, _, err := newClient(t, root, tempdir.New(t), nil).Readme(ctx, "fixture.hello"); err != nil || !strings.HasPrefix(text, "# ") {
		t.Errorf("a link inside: %q, %v", text, err)
	}
}

// TestGitRegistryLinksOut: a git registry whose README is a committed
// relative link climbing out of the clone (to /proc/self/environ) is an
// error, and the environment is never printed.
func TestGitRegistryLinksOut(t *testing.T) {
	t.Setenv("SPIRIT_TEST_SECRET", "S3CRET")
	work := tempdir.New(t)
	writeFixtureRegistry(t, filepath.Join(work, "registry"))
	linkOut(t, filepath.Join(work, "registry"), "extensions/fixture.hello/README.md", strings.Repeat("../", 24)+"proc/self/environ")
	commitAll(t, work)
	c := newClient(t, "git+file://"+work, tempdir.New(t), nil)
	ctx := context.Background()
	if _, err := c.Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	text, _, err := c.Readme(ctx, "fixture.hello")
	checkRefused(t, "readme", text, err)
}
