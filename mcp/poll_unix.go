//go:build unix

package mcp

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// pollable returns a reader of the same input that the Go runtime's poller
// waits on, when r is a file reading a pipe or a socket (standard input
// from an MCP client), and the function that undoes it; otherwise r and a
// no-op. A blocking read of standard input keeps a thread in the kernel,
// and the runtime hands its processor to another thread every time it
// waits (futex wake-ups, and the system monitor polling every 20 µs while
// it does): a few syscalls a message more than a polled pipe. The file
// gets a descriptor of its own (dup), so closing it wakes a pending read,
// and O_NONBLOCK, which is shared with that of r, is cleared again by undo
// (a terminal or a regular file is left as it is).
func pollable(r io.Reader) (io.Reader, func() error) {
	noop := func() error { return nil }
	f, ok := r.(*os.File)
	if !ok {
		return r, noop
	}
	sc, err := f.SyscallConn() // not f.Fd(), which would make f blocking
	if err != nil {
		return r, noop
	}
	dup := -1
	_ = sc.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) != nil || (st.Mode&unix.S_IFMT != unix.S_IFIFO && st.Mode&unix.S_IFMT != unix.S_IFSOCK) {
			return
		}
		if fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK != 0 {
			return // already non-blocking: polled by its own *os.File, or someone else's
		}
		if d, err := unix.Dup(int(fd)); err == nil {
			dup = d
		}
	})
	if dup < 0 {
		return r, noop
	}
	unix.CloseOnExec(dup)
	if err := unix.SetNonblock(dup, true); err != nil {
		unix.Close(dup)
		return r, noop
	}
	p := os.NewFile(uintptr(dup), f.Name())
	return p, func() error {
		_ = unix.SetNonblock(dup, false)
		return p.Close()
	}
}
