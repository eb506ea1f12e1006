package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spiritagents/spirit/internal/atomicfile"
)

const journalName = "journal"

// ErrInUse matches an *InUseError.
var ErrInUse = errors.New("folder in use")

// InUseError is a folder that could not be moved because a running
// program holds it: Windows refuses to rename a folder that is a process's
// working folder or holds a file opened without delete sharing (a running
// extension, the apps, a virus scanner still reading it). Nothing was
// changed: the installed version stays.
type InUseError struct {
	Path string
	Err  error // what the rename said
}

func (e *InUseError) Error() string {
	return fmt.Sprintf("%s is in use by a running program, and a folder in use cannot be moved or replaced on this system: %v", e.Path, e.Err)
}

func (e *InUseError) Unwrap() []error { return []error{ErrInUse, e.Err} }

// inUseWaits are the pauses between tries of a rename refused because the
// folder is in use (about 2 s in all): what a virus scanner or an indexer
// holds, it holds briefly; a running extension does not let go, and the
// command then fails with an *InUseError.
var inUseWaits = []time.Duration{
	10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond,
	150 * time.Millisecond, 300 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond,
}

// moveDir renames a folder of the install tree, trying again while the
// system says it is in use (only Windows does; see inUse).
func moveDir(from, to string) error {
	err := os.Rename(from, to)
	for _, w := range inUseWaits {
		if err == nil || !inUse(err) {
			break
		}
		time.Sleep(w)
		err = os.Rename(from, to)
	}
	if err != nil && inUse(err) {
		return &InUseError{Path: from, Err: err}
	}
	return err
}

// exchangeByRenames swaps a and b where no atomic exchange exists, with
// three renames (moveDir; a test passes one that crashes). a must lie
// directly inside a staging transaction directory, whose journal names b
// so that recoverSwaps can put the old b back after a crash:
//
//	journal → b to a.old → a to b (the commit) → a.old to a → no journal
//
// A kill before the second rename leaves the old b (put back by the next
// command when it was moved aside); a kill after it leaves the new one.
// When b is in use the first rename fails and nothing has changed.
func exchangeByRenames(a, b string, rename func(from, to string) error) error {
	journal := filepath.Join(filepath.Dir(a), journalName)
	old := a + ".old"
	if err := atomicfile.WriteDurable(journal, []byte(b), 0o644); err != nil {
		return err
	}
	if err := rename(b, old); err != nil {
		_ = os.Remove(journal)
		return err
	}
	if err := rename(a, b); err != nil {
		if rerr := rename(old, b); rerr != nil {
			return errors.Join(err, rerr)
		}
		_ = os.Remove(journal)
		return err
	}
	if err := rename(old, a); err != nil {
		return err
	}
	return os.Remove(journal)
}

// recoverSwaps repairs exchanges interrupted between their renames: when
// a journal's target is missing and the old directory is still staged,
// the old directory goes back. It runs under the lock, before staging is
// cleaned, and returns the transactions that must not be cleaned because
// their old directory could not go back (it is the only copy left; the
// next command tries again).
func recoverSwaps(stagingDir string, rename func(from, to string) error) (keep map[string]bool) {
	txns, _ := os.ReadDir(stagingDir)
	for _, t := range txns {
		dir := filepath.Join(stagingDir, t.Name())
		target, err := os.ReadFile(filepath.Join(dir, journalName))
		if err != nil {
			continue
		}
		old := filepath.Join(dir, "pkg.old")
		if _, err := os.Lstat(string(target)); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		if _, err := os.Stat(old); err != nil {
			continue
		}
		if err := rename(old, string(target)); err != nil {
			if keep == nil {
				keep = map[string]bool{}
			}
			keep[t.Name()] = true
		}
	}
	return keep
}
