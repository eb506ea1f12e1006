package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

func TestWrite(t *testing.T) {
	dir := tempdir.New(t)
	path := filepath.Join(dir, "a", "b", "f.json")
	for _, w := range []func(string, []byte, os.FileMode) error{Write, WriteDurable} {
		if err := w(path, []byte("one"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := w(path, []byte("two"), 0o600); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil || string(data) != "two" {
			t.Fatalf("got %q, %v", data, err)
		}
		// Windows has no mode bits beyond read-only.
		if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v", fi.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	// A failure (the target is a directory) leaves no temporary file behind.
	if err := Write(dir, []byte("x"), 0o644); err == nil {
		t.Error("writing over a directory succeeded")
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) == 0 {
		t.Fatal("unexpected empty parent")
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".*.tmp-*"))
	if len(matches) != 0 {
		t.Errorf("temporary files left after a failure: %v", matches)
	}
}

// TestWriteDurableSyncsFolder checks that WriteDurable flushes the folder
// once the new name is in place (so the rename survives a power cut), that
// Write does not, and that a failed flush is reported.
func TestWriteDurableSyncsFolder(t *testing.T) {
	dir := tempdir.New(t)
	path := filepath.Join(dir, "f.json")
	var synced []string
	flushErr := error(nil)
	orig := syncDir
	t.Cleanup(func() { syncDir = orig })
	syncDir = func(d string) error {
		data, err := os.ReadFile(path)
		if err != nil || string(data) != "new" {
			t.Errorf("folder flushed before the rename: %q, %v", data, err)
		}
		synced = append(synced, d)
		if err := orig(d); err != nil {
			return err
		}
		return flushErr
	}
	if err := Write(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 0 {
		t.Fatalf("Write flushed %v", synced)
	}
	if err := WriteDurable(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 1 || synced[0] != dir {
		t.Fatalf("WriteDurable flushed %v, want [%s]", synced, dir)
	}
	flushErr = os.ErrPermission
	if err := WriteDurable(path, []byte("new"), 0o644); !errors.Is(err, os.ErrPermission) {
		t.Fatalf("a failed folder flush gave %v", err)
	}
}
