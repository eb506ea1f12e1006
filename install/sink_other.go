//go:build !linux

package install

import (
	"io"
	"io/fs"
	"os"
	"path"
)

// create writes r into the new file base of the directory parent, opened
// through the root by its whole name.
func (s *rootSink) create(parent, base string, mode fs.FileMode, r io.Reader) error {
	f, err := s.root.OpenFile(path.Join(parent, base), os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.CopyBuffer(onlyWriter{f}, r, s.buf)
	if err == nil && mode&s.mask != 0 {
		err = f.Chmod(mode) // the umask must not change the fixed mode
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// onlyWriter hides ReadFrom so io.CopyBuffer uses our buffer.
type onlyWriter struct{ w io.Writer }

func (o onlyWriter) Write(p []byte) (int, error) { return o.w.Write(p) }
