package within

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// removeAt removes rel in r. os.Root deletes with the POSIX-semantics
// disposition call; where the filesystem refuses that with
// ERROR_INVALID_FUNCTION (Wine 8 does, and so do some drivers; see
// internal/rmtree), the parent folder is opened through r, so every link
// on the way is resolved inside it, and the entry is deleted by its one
// name in the folder that handle names: DeleteFile or RemoveDirectory,
// which remove a link itself, not its target.
func removeAt(r *os.Root, rel string) error {
	err := r.Remove(rel)
	if err == nil || !errors.Is(err, windows.ERROR_INVALID_FUNCTION) {
		return err
	}
	parent, perr := r.Open(filepath.Dir(rel))
	if perr != nil {
		return err
	}
	defer parent.Close()
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, perr := windows.GetFinalPathNameByHandle(windows.Handle(parent.Fd()), &buf[0], uint32(len(buf)), 0)
	if perr != nil || n == 0 || int(n) >= len(buf) {
		return err
	}
	return os.Remove(filepath.Join(windows.UTF16ToString(buf[:n]), filepath.Base(rel)))
}
