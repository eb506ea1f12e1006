package install

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path"
	"testing/fstest"
)

// Progress receives what a long operation is doing. Every method may be
// called on a nil Progress through the package's helpers, so callers pass
// nil when they want nothing.
type Progress interface {
	// Waiting is called once when another process holds the lock.
	Waiting(lockFile string)
	// Extracting reports bytes done out of total while a source is unpacked.
	Extracting(done, total int64)
}

func progressWaiting(p Progress, lock string) {
	if p != nil {
		p.Waiting(lock)
	}
}

func progressExtracting(p Progress, done, total int64) {
	if p != nil {
		p.Extracting(done, total)
	}
}

// Archive is a source read into memory: its package root as a file system.
type Archive struct {
	Format Format
	// Manifest is the package.json bytes of the package root.
	Manifest []byte
	// FS holds the files of the package root (package.json at its top).
	FS fs.FS
}

// ReadArchive reads a .zip or .tgz (or a directory) into memory with every
// rule that an install applies (names, links, sizes, counts, ratio), and
// returns its package root. It writes nothing.
func ReadArchive(src string) (*Archive, error) {
	format, err := DetectFormat(src)
	if err != nil {
		return nil, err
	}
	m := &memSink{fs: fstest.MapFS{}}
	data, err := extract(context.Background(), src, format, m, nil, nil)
	if err != nil {
		return nil, err
	}
	return &Archive{Format: format, Manifest: data, FS: m.fs}, nil
}

// memSink keeps the files in memory.
type memSink struct{ fs fstest.MapFS }

func (m *memSink) mkdir(name string) error {
	m.fs[name] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
	return nil
}

func (m *memSink) file(name string, exec bool, r io.Reader) error {
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, r); err != nil {
		return err
	}
	m.fs[name] = &fstest.MapFile{Data: buf.Bytes(), Mode: fileMode(exec)}
	return nil
}

func fileMode(exec bool) fs.FileMode {
	if exec {
		return 0o755
	}
	return 0o644
}

// rootSink writes into a directory through an os.Root, so no name can
// leave it, whatever the checks before missed.
type rootSink struct {
	root *os.Root
	dirs map[string]bool
	buf  []byte
}

func newRootSink(dir string) (*rootSink, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &rootSink{root: r, dirs: map[string]bool{".": true}, buf: make([]byte, 256<<10)}, nil
}

func (s *rootSink) close() error { return s.root.Close() }

func (s *rootSink) mkdir(name string) error {
	if s.dirs[name] {
		return nil
	}
	if err := s.root.MkdirAll(name, 0o755); err != nil {
		return err
	}
	s.dirs[name] = true
	return nil
}

func (s *rootSink) file(name string, exec bool, r io.Reader) error {
	if err := s.mkdir(path.Dir(name)); err != nil {
		return err
	}
	mode := fileMode(exec)
	f, err := s.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.CopyBuffer(onlyWriter{f}, r, s.buf)
	if err == nil {
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
