package install

import (
	"io"
	"io/fs"
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// create writes r into the new file base of the directory parent with
// three system calls: os.File would add two fcntl and an epoll_ctl to
// each (it tries to register every file with the network poller), a third
// of the time of unpacking a package of small files.
func (s *rootSink) create(parent, base string, mode fs.FileMode, r io.Reader) error {
	d, err := s.dir(parent)
	if err != nil {
		return err
	}
	name := path.Join(parent, base)
	fd, err := ignoringEINTR(func() (int, error) {
		return unix.Openat(int(d.Fd()), base, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(mode))
	})
	if err != nil {
		return &os.PathError{Op: "open", Path: name, Err: err}
	}
	_, err = io.CopyBuffer(fdWriter{fd: fd, name: name}, r, s.buf)
	if err == nil && mode&s.mask != 0 {
		if _, cerr := ignoringEINTR(func() (int, error) { return 0, unix.Fchmod(fd, uint32(mode)) }); cerr != nil {
			err = &os.PathError{Op: "chmod", Path: name, Err: cerr}
		}
	}
	// close is not retried on EINTR: on Linux the descriptor is released
	// whatever close returns.
	if cerr := unix.Close(fd); err == nil && cerr != nil {
		err = &os.PathError{Op: "close", Path: name, Err: cerr}
	}
	return err
}

// fdWriter writes to a file descriptor, all of p or an error.
type fdWriter struct {
	fd   int
	name string
}

func (w fdWriter) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := unix.Write(w.fd, p[done:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return done, &os.PathError{Op: "write", Path: w.name, Err: err}
		}
		if n == 0 {
			return done, &os.PathError{Op: "write", Path: w.name, Err: io.ErrShortWrite}
		}
		done += n
	}
	return done, nil
}

func ignoringEINTR(fn func() (int, error)) (int, error) {
	for {
		n, err := fn()
		if err != unix.EINTR {
			return n, err
		}
	}
}
