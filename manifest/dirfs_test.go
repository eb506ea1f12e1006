package manifest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// TestDirFSResolution: Stat and Open through DirFS, DirFSIn and
// DirFSListed (of a folder, as a listing gives it) give the same
// answers, whether a path's elements are plain (the Lstat walk) or
// symlinks (EvalSymlinks), and whether the package folder itself or a
// folder above it is a symlink.
func TestDirFSResolution(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("these links need a privilege on Windows (SeCreateSymbolicLinkPrivilege or Developer Mode), and Wine's do not resolve as Windows' do")
	}
	base := tempdir.New(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(base, "outside")
	real := filepath.Join(base, "real")
	pkg := filepath.Join(real, "pkg")
	must(os.MkdirAll(outside, 0o755))
	must(os.MkdirAll(filepath.Join(pkg, "dist", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(outside, "secret.js"), []byte("secret"), 0o644))
	must(os.WriteFile(filepath.Join(pkg, "index.js"), []byte("index"), 0o644))
	must(os.WriteFile(filepath.Join(pkg, "dist", "sub", "deep.js"), []byte("deep"), 0o644))
	must(os.Symlink("index.js", filepath.Join(pkg, "rel-inside.js")))
	must(os.Symlink(filepath.Join(pkg, "index.js"), filepath.Join(pkg, "abs-inside.js")))
	must(os.Symlink("dist", filepath.Join(pkg, "linkdir")))
	must(os.Symlink(filepath.Join(outside, "secret.js"), filepath.Join(pkg, "escape.js")))
	must(os.Symlink("../../../outside", filepath.Join(pkg, "dist", "out")))
	must(os.Symlink("missing.js", filepath.Join(pkg, "dangling.js")))
	// The package reached through a symlinked folder, and as a symlink.
	must(os.Symlink(real, filepath.Join(base, "via")))
	must(os.Symlink(pkg, filepath.Join(real, "pkg-link")))

	type want struct {
		data string // "" for a directory
		err  error
	}
	cases := map[string]want{
		"index.js":            {data: "index"},
		"dist/sub/deep.js":    {data: "deep"},
		"dist":                {},
		"rel-inside.js":       {data: "index"},
		"abs-inside.js":       {data: "index"},
		"linkdir/sub/deep.js": {data: "deep"},
		"escape.js":           {err: ErrEscapes},
		"dist/out/secret.js":  {err: ErrEscapes},
		"dangling.js":         {err: fs.ErrNotExist},
		"missing.js":          {err: fs.ErrNotExist},
		"index.js/x":          {err: fs.ErrNotExist},
		"dist/../index.js":    {err: fs.ErrInvalid},
	}
	realRoot, err := filepath.EvalSymlinks(real)
	must(err)
	for label, fsys := range map[string]fs.FS{
		"DirFS":               DirFS(pkg),
		"DirFS via link":      DirFS(filepath.Join(base, "via", "pkg")),
		"DirFSIn":             DirFSIn(realRoot, "pkg"),
		"DirFSIn of pkg-link": DirFSIn(realRoot, "pkg-link"),
		"DirFSListed":         DirFSListed(realRoot, "pkg"),
	} {
		for name, w := range cases {
			info, err := fs.Stat(fsys, name)
			if w.err != nil {
				if !errors.Is(err, w.err) {
					t.Errorf("%s: Stat(%s) = %v, want %v", label, name, err, w.err)
				}
				if _, err := fsys.Open(name); !errors.Is(err, w.err) {
					t.Errorf("%s: Open(%s) = %v, want %v", label, name, err, w.err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: Stat(%s): %v", label, name, err)
				continue
			}
			if info.IsDir() != (w.data == "") || info.Mode()&fs.ModeSymlink != 0 {
				t.Errorf("%s: Stat(%s) mode %v", label, name, info.Mode())
			}
			if w.data != "" {
				got, err := fs.ReadFile(fsys, name)
				if err != nil || string(got) != w.data || info.Size() != int64(len(w.data)) {
					t.Errorf("%s: ReadFile(%s) = %q, %v (size %d), want %q", label, name, got, err, info.Size(), w.data)
				}
			}
		}
	}
}
