// Package rmtree removes a directory tree, as os.RemoveAll does, on every
// filesystem spirit meets.
//
// On Windows, Go's os.RemoveAll deletes each entry below the top with
// NtSetInformationFile(FileDispositionInformationEx) and falls back to the
// older delete call only for three answers (invalid info class, invalid
// parameter, not supported). A filesystem or driver that answers "not
// implemented" or "invalid device request" instead (both reach Go as
// ERROR_INVALID_FUNCTION) makes RemoveAll fail on every tree that is not
// empty, while DeleteFile and RemoveDirectory work there. Wine 8 is one:
// its NtSetInformationFile answers STATUS_NOT_IMPLEMENTED to that class.
// Microsoft's C++ library (std::filesystem::remove) falls back to the
// older call on the same three errors, ERROR_INVALID_FUNCTION included.
//
// Remove does what os.RemoveAll does and, only when that is refused so,
// walks the tree and removes each entry by name with os.Remove (DeleteFile,
// RemoveDirectory). The walk never follows a link or a junction: an entry
// that is not a plain directory is removed itself, not what it points to.
package rmtree

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Remove removes path and everything below it. A path that does not
// exist is not an error. The first error met is returned; the walk goes
// on past it, so as much as possible is removed.
func Remove(path string) error {
	err := os.RemoveAll(path)
	if err == nil || !refused(err) {
		return err
	}
	return byNames(path)
}

// byNames removes path the old way: children first, each by its name.
func byNames(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	var first error
	if fi.Mode().Type() == fs.ModeDir {
		ents, err := os.ReadDir(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			first = err
		}
		for _, e := range ents {
			if err := byNames(filepath.Join(path, e.Name())); err != nil && first == nil {
				first = err
			}
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) && first == nil {
		first = err
	}
	return first
}
