package within

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// tree makes dir/in.txt, dir/inside -> in.txt, dir/out -> ../secret.txt,
// dir/up -> ../../../../../../../../proc/self/environ (relative, as a git
// repository can hold), dir/escdir -> the secret folder, and returns dir
// and the secret folder.
func tree(t *testing.T) (string, string) {
	t.Helper()
	base := tempdir.New(t)
	dir, secret := filepath.Join(base, "repo"), filepath.Join(base, "secrets")
	for _, d := range []string{dir, secret} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "in.txt"), []byte("inside"), 0o644))
	must(os.WriteFile(filepath.Join(base, "secret.txt"), []byte("_authToken=s3cret"), 0o644))
	must(os.Symlink("in.txt", filepath.Join(dir, "inside")))
	must(os.Symlink("../secret.txt", filepath.Join(dir, "out")))
	must(os.Symlink(strings.Repeat("../", 12)+"proc/self/environ", filepath.Join(dir, "up")))
	must(os.Symlink("../secrets", filepath.Join(dir, "escdir")))
	return dir, secret
}

func TestReadRefusesEscapes(t *testing.T) {
	dir, _ := tree(t)
	if data, err := ReadFile(dir, "inside"); err != nil || string(data) != "inside" {
		t.Fatalf("a link inside the folder: %q, %v", data, err)
	}
	for _, name := range []string{"out", "up", filepath.Join(dir, "out"), "escdir/x.json"} {
		data, err := ReadFile(dir, name)
		var ee *EscapeError
		if !errors.As(err, &ee) || !errors.Is(err, ErrEscape) || len(data) != 0 {
			t.Errorf("ReadFile %s: %q, %v", name, data, err)
			continue
		}
		if !strings.Contains(err.Error(), filepath.ToSlash(ee.Name)) {
			t.Errorf("the error does not name the entry: %v", err)
		}
		if _, err := Open(dir, name); !errors.Is(err, ErrEscape) {
			t.Errorf("Open %s: %v", name, err)
		}
		if _, err := Stat(dir, name); !errors.Is(err, ErrEscape) {
			t.Errorf("Stat %s: %v", name, err)
		}
	}
	if _, err := ReadFile(dir, "missing"); !errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrEscape) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := ReadFile(dir, filepath.Join(filepath.Dir(dir), "secret.txt")); !errors.Is(err, ErrEscape) {
		t.Errorf("an absolute name outside: %v", err)
	}
}

func TestFindFilesDoesNotWalkOut(t *testing.T) {
	dir, secret := tree(t)
	if err := os.WriteFile(filepath.Join(secret, "detail.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := FindFiles(dir, ".", "detail.json")
	if err != nil || len(files) != 0 {
		t.Errorf("FindFiles walked out: %v, %v", files, err)
	}
	if _, err := FindFiles(dir, "escdir", "detail.json"); !errors.Is(err, ErrEscape) {
		t.Errorf("FindFiles under a link out: %v", err)
	}
	if files, err := FindFiles(dir, "missing", "x"); err != nil || len(files) != 0 {
		t.Errorf("FindFiles of a missing folder: %v, %v", files, err)
	}
}

func TestWriteFileRefusesEscapes(t *testing.T) {
	dir, secret := tree(t)
	if err := WriteFile(dir, "escdir/detail.json", []byte("x"), 0o644); !errors.Is(err, ErrEscape) {
		t.Errorf("a write under a link out: %v", err)
	}
	if _, err := os.Stat(filepath.Join(secret, "detail.json")); !os.IsNotExist(err) {
		t.Errorf("the write went through the link: %v", err)
	}
	// A link at the name itself is replaced; its target is untouched.
	if err := WriteFile(dir, "out", []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(filepath.Dir(dir), "secret.txt")); string(data) != "_authToken=s3cret" {
		t.Errorf("the link's target was written: %q", data)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "out")); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
		t.Errorf("out is not a regular 0644 file now: %v, %v", fi, err)
	}
	if err := WriteFile(dir, "a/b/c.json", []byte("c"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "a", "b")); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	if err := Remove(dir, "escdir/x"); !errors.Is(err, ErrEscape) {
		t.Errorf("Remove under a link out: %v", err)
	}
}
