package install

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
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
// rule that an install applies (names, links, sizes, counts, ratio, and the
// Windows path length for the name its package.json gives), and returns its
// package root. It writes nothing.
func ReadArchive(src string) (*Archive, error) {
	format, err := DetectFormat(src)
	if err != nil {
		return nil, err
	}
	m := &memSink{fs: fstest.MapFS{}}
	ex, err := extract(context.Background(), src, format, m, nil, nil)
	if err != nil {
		return nil, err
	}
	if err := ex.checkLength(packageName(ex.manifest)); err != nil {
		return nil, err
	}
	return &Archive{Format: format, Manifest: ex.manifest, FS: m.fs}, nil
}

// CheckNames applies the name rules of an install (the package doc's first
// two rules, and the Windows path length for the name its package.json
// gives) to every entry under the folder dir, without reading a file:
// `extension validate` of a folder. Symbolic links are not followed.
func CheckNames(dir string) error {
	var names nameSet
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		raw := filepath.ToSlash(rel)
		name, err := cleanName(raw)
		if err != nil {
			return err
		}
		return names.add(raw, name, d.IsDir())
	})
	if err != nil {
		return err
	}
	data, _ := os.ReadFile(filepath.Join(dir, "package.json"))
	return names.checkLength(packageName(data))
}

// packageName is the name in package.json bytes, or "" (the manifest's own
// validation speaks about a package.json without one). The Windows path
// rule then assumes an empty id, the shortest folder.
func packageName(data []byte) string {
	var m struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(data, &m)
	return m.Name
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
// leave it, whatever the checks before missed. On Linux each file is
// created with three system calls (openat, write, close): the directory it
// goes in is held open (a few at a time, each opened through the root), the
// name opened in it is a single component created with O_EXCL|O_NOFOLLOW,
// and the mode is set by fchmod only when the umask would change it. On
// other systems files are opened through the root by their whole name.
type rootSink struct {
	root *os.Root
	dirs map[string]bool
	held map[string]*os.File // open directories, at most maxHeldDirs
	buf  []byte
	mask fs.FileMode // the process umask, or 0o777 when it is not known
}

// maxHeldDirs bounds the directories a rootSink keeps open. Archives
// mostly list files directory by directory, but some interleave dozens of
// directories (one file in each, round after round): with fewer held
// than that, every file would reopen its directory through the root (two
// openat, a close, four fcntl and an epoll_ctl). Go raises the soft limit
// of open files to the hard one at start, far above this.
const maxHeldDirs = 128

func newRootSink(dir string) (*rootSink, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &rootSink{root: r, dirs: map[string]bool{".": true}, held: map[string]*os.File{},
		buf: make([]byte, 256<<10), mask: processUmask()}, nil
}

func (s *rootSink) close() error {
	s.dropHeld()
	return s.root.Close()
}

func (s *rootSink) dropHeld() {
	for k, f := range s.held {
		f.Close()
		delete(s.held, k)
	}
}

// dropOne closes one held directory (any: the map's order) to make room.
func (s *rootSink) dropOne() {
	for k, f := range s.held {
		f.Close()
		delete(s.held, k)
		return
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

// dir returns the directory name (relative to the root), held open.
func (s *rootSink) dir(name string) (*os.File, error) {
	if f, ok := s.held[name]; ok {
		return f, nil
	}
	if len(s.held) >= maxHeldDirs {
		s.dropOne()
	}
	f, err := s.root.Open(name)
	if err != nil {
		return nil, err
	}
	s.held[name] = f
	return f, nil
}

func (s *rootSink) file(name string, exec bool, r io.Reader) error {
	parent, base := path.Split(name)
	parent = path.Clean(parent)
	if base == "" || base == "." || base == ".." {
		return entryErr(name, ErrBadName)
	}
	if err := s.mkdir(parent); err != nil {
		return err
	}
	return s.create(parent, base, fileMode(exec), r)
}
