package install

import (
	"errors"

	"golang.org/x/sys/windows"
)

// inUse reports whether a rename failed because a running program holds
// the folder: its working folder, or a file in it opened without delete
// sharing (ERROR_SHARING_VIOLATION, ERROR_LOCK_VIOLATION), or, as
// Windows also answers then, ERROR_ACCESS_DENIED.
func inUse(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_LOCK_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED)
}
