package install

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchangeDirs atomically swaps the directories a and b (both must exist):
// one renameat2(RENAME_EXCHANGE), so no moment exists where either name is
// missing. It falls back to renames where the filesystem cannot exchange.
func exchangeDirs(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
		return exchangeByRenames(a, b, moveDir)
	}
	if err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}
