// Package atomicfile replaces files so that a reader, or a process that is
// killed half way, sees the old content or the new, never a mix: the data
// goes to a temporary file in the same folder, which is then renamed over
// the target.
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, creating its folder if needed, and gives
// the file mode perm.
func Write(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, false)
}

// WriteDurable is Write that also flushes the data to disk before the
// rename and the folder after it, for records that must survive a power
// cut: without the second flush the rename itself may be lost.
func WriteDurable(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, true)
}

// syncDir flushes the folder dir; a variable so that a test can see it run.
var syncDir = flushDir

// flushUnixDir flushes a folder the Unix way: fsync on the folder.
func flushUnixDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func write(path string, data []byte, perm fs.FileMode, sync bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil && sync {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), perm)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if sync {
		if err := syncDir(dir); err != nil {
			return fmt.Errorf("flush folder %s: %w", dir, err)
		}
	}
	return nil
}
