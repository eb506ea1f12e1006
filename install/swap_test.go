package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/paths"
)

func writeMark(t *testing.T, dir, mark string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mark"), []byte(mark), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readMark(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "mark"))
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return string(data)
}

// TestExchangeByRenames swaps two directories with the fallback used where
// the filesystem has no atomic exchange, and leaves no journal.
func TestExchangeByRenames(t *testing.T) {
	txn := tempdir.New(t)
	a, b := filepath.Join(txn, "pkg"), filepath.Join(tempdir.New(t), "target")
	writeMark(t, a, "new")
	writeMark(t, b, "old")
	if err := exchangeByRenames(a, b, os.Rename); err != nil {
		t.Fatal(err)
	}
	if got := readMark(t, b); got != "new" {
		t.Errorf("target holds %q, want new", got)
	}
	if got := readMark(t, a); got != "old" {
		t.Errorf("staged directory holds %q, want old", got)
	}
	if _, err := os.Stat(filepath.Join(txn, journalName)); !os.IsNotExist(err) {
		t.Errorf("journal left behind: %v", err)
	}
}

type crash struct{}

// dyingRename renames until it has done n renames, then panics (the
// process dying: nothing after it runs).
func dyingRename(n int) func(from, to string) error {
	calls := 0
	return func(from, to string) error {
		if calls == n {
			panic(crash{})
		}
		calls++
		return os.Rename(from, to)
	}
}

// TestSwapCrashIsRepaired kills the fallback exchange before its first
// rename, after each of its renames and before it drops its journal (a
// panic stands for the process dying) and checks that the next command
// leaves the install complete: the old directory when the new one had not
// yet taken its place, the new one after, and no staging either way.
func TestSwapCrashIsRepaired(t *testing.T) {
	for _, c := range []struct {
		renamesDone int
		want        string
	}{
		{0, "old"}, // only the journal is written: nothing to repair
		{1, "old"}, // the target is missing: the journal puts the old one back
		{2, "new"}, // the new one is in place: the old one is cleaned away
		{3, "new"}, // all renamed, the journal is still there
	} {
		p := paths.New(tempdir.New(t), paths.HostCLI)
		target := p.PackageDir("crash-ext")
		writeMark(t, target, "old")
		staged := filepath.Join(p.StagingDir(), "install-1", "pkg")
		writeMark(t, staged, "new")

		if c.renamesDone < 3 {
			crashDuring(t, func() { _ = exchangeByRenames(staged, target, dyingRename(c.renamesDone)) })
		} else {
			// The state a kill between the last rename and the journal's
			// removal leaves.
			if err := exchangeByRenames(staged, target, os.Rename); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(filepath.Dir(staged), journalName), []byte(target), 0o644); err != nil {
				t.Fatal(err)
			}
		}

		lockOnce(t, p)
		if got := readMark(t, target); got != c.want {
			t.Errorf("after a crash with %d renames done, the install holds %q, want %q", c.renamesDone, got, c.want)
		}
		if ents, _ := os.ReadDir(p.StagingDir()); len(ents) != 0 {
			t.Errorf("after a crash with %d renames done, staging keeps %d entries", c.renamesDone, len(ents))
		}
	}
}

// TestSwapRepairThatFailsKeepsTheOldCopy: when the old directory cannot go
// back (on Windows, something holds it), the next command must not clean
// staging, where the only copy is; a later command repairs it.
func TestSwapRepairThatFailsKeepsTheOldCopy(t *testing.T) {
	p := paths.New(tempdir.New(t), paths.HostCLI)
	target := p.PackageDir("crash-ext")
	writeMark(t, target, "old")
	staged := filepath.Join(p.StagingDir(), "install-1", "pkg")
	writeMark(t, staged, "new")
	crashDuring(t, func() { _ = exchangeByRenames(staged, target, dyingRename(1)) })

	refused := func(from, to string) error { return &InUseError{Path: from, Err: os.ErrPermission} }
	keep := recoverSwaps(p.StagingDir(), refused)
	if !keep["install-1"] {
		t.Fatalf("a failed repair does not keep its transaction: %v", keep)
	}
	in := &Installer{Paths: p}
	in.tidyKeeping(keep)
	if got := readMark(t, filepath.Join(p.StagingDir(), "install-1", "pkg.old")); got != "old" {
		t.Fatalf("the old copy is gone from staging: %q", got)
	}

	lockOnce(t, p)
	if got := readMark(t, target); got != "old" {
		t.Errorf("the next command leaves %q, want old", got)
	}
	if ents, _ := os.ReadDir(p.StagingDir()); len(ents) != 0 {
		t.Errorf("staging keeps %d entries", len(ents))
	}
}

// TestSwapFirstRenameRefused: when the installed directory cannot be moved
// aside (in use on Windows), nothing changes and no journal stays.
func TestSwapFirstRenameRefused(t *testing.T) {
	p := paths.New(tempdir.New(t), paths.HostCLI)
	target := p.PackageDir("busy-ext")
	writeMark(t, target, "old")
	staged := filepath.Join(p.StagingDir(), "install-1", "pkg")
	writeMark(t, staged, "new")
	refused := func(from, to string) error { return &InUseError{Path: from, Err: os.ErrPermission} }
	if err := exchangeByRenames(staged, target, refused); !errors.Is(err, ErrInUse) {
		t.Fatalf("got %v, want ErrInUse", err)
	}
	if got := readMark(t, target); got != "old" {
		t.Errorf("the install holds %q, want old", got)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(staged), journalName)); !os.IsNotExist(err) {
		t.Errorf("journal left behind: %v", err)
	}
}

func crashDuring(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != (crash{}) {
			t.Fatalf("no crash: %v", r)
		}
	}()
	f()
}

// lockOnce runs what the next command runs first: the lock and its tidy.
func lockOnce(t *testing.T, p *paths.Paths) {
	t.Helper()
	unlock, err := (&Installer{Paths: p}).lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	unlock()
}
