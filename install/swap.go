package install

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/spiritagents/spirit/internal/atomicfile"
)

const journalName = "journal"

// exchangeByRenames swaps a and b where no atomic exchange exists, with
// rename (os.Rename; a test passes one that crashes). a must lie directly
// inside a staging transaction directory, whose journal names b so that
// recoverSwaps can put the old b back after a crash.
func exchangeByRenames(a, b string, rename func(from, to string) error) error {
	journal := filepath.Join(filepath.Dir(a), journalName)
	old := a + ".old"
	if err := atomicfile.WriteDurable(journal, []byte(b), 0o644); err != nil {
		return err
	}
	if err := rename(b, old); err != nil {
		return err
	}
	if err := rename(a, b); err != nil {
		if rerr := rename(old, b); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	if err := rename(old, a); err != nil {
		return err
	}
	return os.Remove(journal)
}

// recoverSwaps repairs an exchange interrupted between its renames: when
// the journal's target is missing and the old directory is still staged,
// the old directory goes back. It runs under the lock, before staging is
// cleaned.
func recoverSwaps(stagingDir string) {
	txns, _ := os.ReadDir(stagingDir)
	for _, t := range txns {
		dir := filepath.Join(stagingDir, t.Name())
		target, err := os.ReadFile(filepath.Join(dir, journalName))
		if err != nil {
			continue
		}
		old := filepath.Join(dir, "pkg.old")
		if _, err := os.Lstat(string(target)); errors.Is(err, os.ErrNotExist) {
			if _, err := os.Stat(old); err == nil {
				_ = os.Rename(old, string(target))
			}
		}
	}
}
