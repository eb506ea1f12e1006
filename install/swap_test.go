package install

import (
	"context"
	"os"
	"path/filepath"
	"testing"

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
	txn := t.TempDir()
	a, b := filepath.Join(txn, "pkg"), filepath.Join(t.TempDir(), "target")
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

// TestSwapCrashIsRepaired kills the fallback exchange after each of its
// renames (a panic stands for the process dying: nothing after it runs)
// and checks that the next command leaves the install complete: the old
// directory when the new one had not yet taken its place, the new one
// after.
func TestSwapCrashIsRepaired(t *testing.T) {
	for _, c := range []struct {
		renamesDone int
		want        string
	}{
		{1, "old"}, // the target is missing: the journal puts the old one back
		{2, "new"}, // the new one is in place: the old one is cleaned away
	} {
		p := paths.New(t.TempDir(), paths.HostCLI)
		target := p.PackageDir("crash-ext")
		writeMark(t, target, "old")
		staged := filepath.Join(p.StagingDir(), "install-1", "pkg")
		writeMark(t, staged, "new")

		calls := 0
		dying := func(from, to string) error {
			if calls == c.renamesDone {
				panic(crash{})
			}
			calls++
			return os.Rename(from, to)
		}
		func() {
			defer func() {
				if r := recover(); r != (crash{}) {
					t.Fatalf("no crash: %v", r)
				}
			}()
			_ = exchangeByRenames(staged, target, dying)
		}()

		in := &Installer{Paths: p}
		unlock, err := in.lock(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		unlock()
		if got := readMark(t, target); got != c.want {
			t.Errorf("after a crash with %d renames done, the install holds %q, want %q", c.renamesDone, got, c.want)
		}
		if ents, _ := os.ReadDir(p.StagingDir()); len(ents) != 0 {
			t.Errorf("after a crash with %d renames done, staging keeps %d entries", c.renamesDone, len(ents))
		}
	}
}
