package exthost

import (
	"os"
	"sync"
)

// MaxLogSize is the size at which an extension's log is moved aside to
// "<log>.1" (replacing the previous one), at start and while it runs, so
// its logs never take more than twice this much.
const MaxLogSize = 10 << 20

// logFile is an extension's log: an append-only file that rotates to
// "<path>.1" when a write would take it past max. A rotation that fails
// keeps writing to the file in place rather than losing output.
type logFile struct {
	mu   sync.Mutex
	path string
	max  int64
	f    *os.File
	size int64
}

// openLog rotates path if it is already over max and opens it for appending.
func openLog(path string, max int64) (*logFile, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() >= max {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	return &logFile{path: path, max: max, f: f, size: size}, nil
}

func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	if l.size > 0 && l.size+int64(len(p)) > l.max {
		l.rotate()
	}
	if int64(len(p)) > l.max {
		p = p[:l.max] // one write never holds more than the cap
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

func (l *logFile) rotate() {
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return // keep writing to the renamed file
	}
	l.f.Close()
	l.f, l.size = f, 0
}

func (l *logFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
