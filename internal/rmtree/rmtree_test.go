package rmtree_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/spiritagents/spirit/internal/rmtree"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// tree makes root/a/b/c.txt, root/a/d.txt, root/e (an empty folder) and
// root/r.txt, read-only.
func tree(t *testing.T, root string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "e"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a/b/c.txt", "a/d.txt", "r.txt"} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(f)), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "r.txt"), 0o444); err != nil {
		t.Fatal(err)
	}
}

// TestRemove removes a tree the usual way (os.RemoveAll, or the walk
// where the filesystem refuses that, as under Wine), and a missing path.
func TestRemove(t *testing.T) {
	base := tempdir.New(t)
	root := filepath.Join(base, "tree")
	tree(t, root)
	if err := rmtree.Remove(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(root); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", root, err)
	}
	if err := rmtree.Remove(root); err != nil {
		t.Errorf("removing a missing path: %v", err)
	}
}

// TestByNames removes a tree by names, the fallback itself, and leaves
// what a link in it points to.
func TestByNames(t *testing.T) {
	base := tempdir.New(t)
	root := filepath.Join(base, "tree")
	tree(t, root)
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(outside, "keep.txt")
	if err := os.WriteFile(keep, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	linked := true
	if err := os.Symlink(outside, filepath.Join(root, "a", "link")); err != nil {
		if runtime.GOOS != "windows" {
			t.Fatal(err)
		}
		linked = false // links need a privilege on Windows
	}
	if err := rmtree.ByNames(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(root); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", root, err)
	}
	if _, err := os.Stat(keep); linked && err != nil {
		t.Errorf("the walk followed a link out of the tree: %v", err)
	}
	if err := rmtree.ByNames(root); err != nil {
		t.Errorf("removing a missing path: %v", err)
	}
}
