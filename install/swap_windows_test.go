package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/paths"
	"golang.org/x/sys/windows"
)

// holdDir opens dir as a running program's working folder is held: read
// and write sharing, no delete sharing, so Windows refuses to rename it.
func holdDir(t *testing.T, dir string) (release func()) {
	t.Helper()
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			windows.CloseHandle(h)
		}
	}
	t.Cleanup(release)
	return release
}

func corpusArchive(name string) string {
	return filepath.Join("..", "testdata", "install", "good", name)
}

// TestInstallOverAFolderInUse replaces, removes and rolls back an
// extension whose folder a running program holds: each fails with
// ErrInUse after its retries and leaves the installed version as it was,
// with nothing staged; once the folder is let go, the same replace works.
func TestInstallOverAFolderInUse(t *testing.T) {
	waits := inUseWaits
	inUseWaits = []time.Duration{10 * time.Millisecond, 10 * time.Millisecond}
	t.Cleanup(func() { inUseWaits = waits })

	ctx := context.Background()
	p := paths.New(tempdir.New(t), paths.HostCLI)
	in := &Installer{Paths: p}
	if _, err := in.Install(ctx, Request{Path: corpusArchive("corpus-ext-1.0.0.zip")}); err != nil {
		t.Fatal(err)
	}
	target := p.PackageDir("corpus-ext")
	release := holdDir(t, target)

	_, err := in.Install(ctx, Request{Path: corpusArchive("corpus-ext-2.0.0.tgz"), Replace: true})
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("replacing a folder in use: got %v, want ErrInUse", err)
	}
	if v := installedVersion(target); v != "1.0.0" {
		t.Errorf("after a refused replace the install holds %q, want 1.0.0", v)
	}
	if _, err := in.Remove(ctx, "corpus-ext", RemoveOptions{}); !errors.Is(err, ErrInUse) {
		t.Fatalf("removing a folder in use: got %v, want ErrInUse", err)
	}
	if _, err := Find(p, "corpus-ext"); err != nil {
		t.Errorf("after a refused remove: %v", err)
	}
	if ents, _ := os.ReadDir(p.StagingDir()); len(ents) != 0 {
		t.Errorf("staging keeps %d entries", len(ents))
	}

	// Let go while the replace waits: it goes through.
	inUseWaits = waits
	go func() {
		time.Sleep(100 * time.Millisecond)
		release()
	}()
	if _, err := in.Install(ctx, Request{Path: corpusArchive("corpus-ext-2.0.0.tgz"), Replace: true}); err != nil {
		t.Fatalf("a replace once the folder is let go: %v", err)
	}
	if v := installedVersion(target); v != "2.0.0" {
		t.Errorf("the install holds %q, want 2.0.0", v)
	}
	if v, _, err := Generation(p, "corpus-ext"); err != nil || v != "1.0.0" {
		t.Errorf("kept generation %q (%v), want 1.0.0", v, err)
	}

	// A rollback over a folder in use is refused too, and changes nothing.
	inUseWaits = []time.Duration{10 * time.Millisecond}
	holdDir(t, target)
	if _, err := in.Rollback(ctx, "corpus-ext"); !errors.Is(err, ErrInUse) {
		t.Fatalf("rolling back over a folder in use: got %v, want ErrInUse", err)
	}
	if v := installedVersion(target); v != "2.0.0" {
		t.Errorf("after a refused rollback the install holds %q, want 2.0.0", v)
	}
	if v, _, err := Generation(p, "corpus-ext"); err != nil || v != "1.0.0" {
		t.Errorf("after a refused rollback the kept generation is %q (%v), want 1.0.0", v, err)
	}
}
