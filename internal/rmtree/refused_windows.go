package rmtree

import (
	"errors"

	"golang.org/x/sys/windows"
)

// refused reports whether os.RemoveAll failed because the filesystem
// refused the POSIX-semantics delete (see the package comment).
func refused(err error) bool { return errors.Is(err, windows.ERROR_INVALID_FUNCTION) }
