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
// leave it, whatever the checks before missed. Each file is created with
// one open: the directory it goes in is held open as an os.Root of its own
// (a few at a time), so the name opened is a single component; and the
// mode is set by fchmod only when the umask would change it.
type rootSink struct {
	root *os.Root
	dirs map[string]bool
	held map[string]*os.Root // open directories, at most maxHeldDirs
	buf  []byte
	mask fs.FileMode // the process umask, or 0o777 when it is not known
}

// maxHeldDirs bounds the directories a rootSink keeps open: archives list
// files directory by directory, so a few are enough.
const maxHeldDirs = 16

func newRootSink(dir string) (*rootSink, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &rootSink{root: r, dirs: map[string]bool{".": true}, held: map[string]*os.Root{},
		buf: make([]byte, 256<<10), mask: processUmask()}, nil
}

func (s *rootSink) close() error {
	s.dropHeld()
	return s.root.Close()
}

func (s *rootSink) dropHeld() {
	for k, r := range s.held {
		r.Close()
		delete(s.held, k)
	}
}

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

// dir returns the held directory name (relative to the root).
func (s *rootSink) dir(name string) (*os.Root, error) {
	if name == "." {
		return s.root, nil
	}
	if r, ok := s.held[name]; ok {
		return r, nil
	}
	if len(s.held) >= maxHeldDirs {
		s.dropHeld()
	}
	r, err := s.root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	s.held[name] = r
	return r, nil
}

func (s *rootSink) file(name string, exec bool, r io.Reader) error {
	parent, base := path.Split(name)
	parent = path.Clean(parent)
	if err := s.mkdir(parent); err != nil {
		return err
	}
	d, err := s.dir(parent)
	if err != nil {
		return err
	}
	mode := fileMode(exec)
	f, err := d.OpenFile(base, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
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
