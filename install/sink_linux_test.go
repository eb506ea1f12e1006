package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// The fixed modes survive a umask that would change them (fchmod), and
// are set by the open alone when the umask leaves them as they are.
func TestRootSinkModes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		umask int
	}{{"umask 077", 0o077}, {"umask 022", 0o022}} {
		t.Run(tc.name, func(t *testing.T) {
			old := syscall.Umask(tc.umask)
			defer syscall.Umask(old)
			dir := tempdir.New(t)
			s, err := newRootSink(dir)
			if err != nil {
				t.Fatal(err)
			}
			s.mask = os.FileMode(tc.umask)
			for _, f := range []struct {
				name string
				exec bool
			}{{"a.txt", false}, {"bin/run.sh", true}, {"bin/deep/x.js", false}} {
				if err := s.file(f.name, f.exec, strings.NewReader("body of "+f.name)); err != nil {
					t.Fatal(err)
				}
			}
			s.close()
			for name, want := range map[string]os.FileMode{"a.txt": 0o644, "bin/run.sh": 0o755, "bin/deep/x.js": 0o644} {
				fi, err := os.Stat(filepath.Join(dir, name))
				if err != nil || fi.Mode().Perm() != want {
					t.Errorf("%s: %v, %v; want %v", name, fi.Mode(), err, want)
				}
				if data, _ := os.ReadFile(filepath.Join(dir, name)); string(data) != "body of "+name {
					t.Errorf("%s holds %q", name, data)
				}
			}
		})
	}
}

// Whatever the name checks missed, a file is never written through a
// symbolic link: not one in place of the file, not one in place of its
// directory, and an existing file is never overwritten.
func TestRootSinkNoEscape(t *testing.T) {
	dir, outside := tempdir.New(t), tempdir.New(t)
	target := filepath.Join(outside, "target")
	if err := os.WriteFile(target, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "link.js")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "lib")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kept.js"), []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := newRootSink(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	s.dirs["lib"] = true // as if the sink had made it: the open must still refuse the link
	for _, name := range []string{"link.js", "lib/new.js", "kept.js"} {
		if err := s.file(name, false, strings.NewReader("evil")); err == nil {
			t.Errorf("%s: written", name)
		} else if name == "kept.js" && !errors.Is(err, os.ErrExist) {
			t.Errorf("%s: %v, want ErrExist", name, err)
		}
	}
	if data, _ := os.ReadFile(target); string(data) != "outside" {
		t.Errorf("the target outside holds %q", data)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("outside holds %d entries", len(ents))
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "kept.js")); string(data) != "kept" {
		t.Errorf("kept.js holds %q", data)
	}
}

// A package that interleaves dozens of directories (a file in each, round
// after round) keeps them all open, up to maxHeldDirs, instead of
// reopening one through the root for every file; past that bound, the
// files are still all written and the open directories stay bounded.
func TestRootSinkHeldDirs(t *testing.T) {
	for _, dirs := range []int{40, maxHeldDirs + 10} {
		dir := tempdir.New(t)
		s, err := newRootSink(dir)
		if err != nil {
			t.Fatal(err)
		}
		for round := range 2 {
			for i := range dirs {
				name := fmt.Sprintf("lib/%03d/f%d.js", i, round)
				if err := s.file(name, false, strings.NewReader(name)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if want := min(dirs, maxHeldDirs); len(s.held) != want {
			t.Errorf("%d directories: %d held, want %d", dirs, len(s.held), want)
		}
		s.close()
		for i := range dirs {
			name := fmt.Sprintf("lib/%03d/f1.js", i)
			if data, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(data) != name {
				t.Fatalf("%s: %q, %v", name, data, err)
			}
		}
	}
}
