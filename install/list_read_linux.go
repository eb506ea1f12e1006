package install

import (
	"os"
	"slices"

	"golang.org/x/sys/unix"
)

// read returns the contents of file name, read through r's buffer with
// open, read and close: os.ReadFile adds an fstat, and its os.File two
// fcntl to make the descriptor non-blocking, an epoll_ctl (which refuses
// a regular file) and two fcntl to undo it. A list of 300 installs reads
// 300 package.json files, and those calls were a fifth of its time.
func (r *fileReader) read(name string) ([]byte, error) {
	fd, err := retryEINTR(func() (int, error) { return unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0) })
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	// close is not retried: on Linux the descriptor is released whatever
	// close returns.
	defer unix.Close(fd)
	if r.buf == nil {
		r.buf = make([]byte, 64<<10)
	}
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = slices.Grow(r.buf, len(r.buf))[:2*len(r.buf)]
		}
		m, err := retryEINTR(func() (int, error) { return unix.Read(fd, r.buf[n:]) })
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: name, Err: err}
		}
		if m == 0 {
			return slices.Clone(r.buf[:n]), nil
		}
		n += m
	}
}

// retryEINTR calls fn again while it fails with EINTR.
func retryEINTR(fn func() (int, error)) (int, error) {
	for {
		n, err := fn()
		if err != unix.EINTR {
			return n, err
		}
	}
}
