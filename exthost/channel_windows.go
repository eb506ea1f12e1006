package exthost

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"sync"
	"time"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// channel is the runner's protocol connection on Windows, where a child
// inherits no descriptors beyond its standard streams: a named pipe
// \\.\pipe\spirit-<random> that only the current user may open, whose path
// the runner gets as its first argument and opens with net.connect. The
// first instance is created exclusively (a pipe of that name made by
// someone else fails the listen), and only the one child's connection is
// accepted: the client's process id must be the runner's.
type channel struct {
	path string
	l    net.Listener

	mu     sync.Mutex
	conn   net.Conn // the runner's connection, once accepted
	closed bool
}

// openChannel listens on a fresh pipe and passes its path to the runner.
func openChannel(cmd *exec.Cmd) (*channel, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	path := `\\.\pipe\spirit-` + hex.EncodeToString(b[:])
	sddl, err := currentUserOnly()
	if err != nil {
		return nil, err
	}
	l, err := winio.ListenPipe(path, &winio.PipeConfig{SecurityDescriptor: sddl, InputBufferSize: 64 << 10, OutputBufferSize: 64 << 10})
	if err != nil {
		return nil, fmt.Errorf("protocol pipe %s: %w", path, err)
	}
	cmd.Args = append(cmd.Args, path)
	return &channel{path: path, l: l}, nil
}

// currentUserOnly is a security descriptor that gives the current user,
// and no one else, access to the pipe (protected: nothing inherited).
func currentUserOnly() (string, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("protocol pipe: the current user: %w", err)
	}
	return "D:P(A;;GA;;;" + u.User.Sid.String() + ")", nil
}

func (c *channel) started() {}

func (c *channel) failed() { c.l.Close() }

// errPipeTimeout says the runner did not open its pipe in time.
var errPipeTimeout = errors.New("the runner did not connect to its protocol pipe")

// connect waits for the runner (process pid) to open the pipe, until it
// exits or wait has passed, then closes the listener: no second client
// can connect. A client that is not pid is refused.
func (c *channel) connect(pid int, exited <-chan struct{}, wait time.Duration) (io.ReadCloser, io.WriteCloser, error) {
	defer c.l.Close()
	type accepted struct {
		conn net.Conn
		err  error
	}
	ch := make(chan accepted, 1)
	go func() {
		for {
			conn, err := c.l.Accept()
			if err != nil {
				ch <- accepted{nil, err}
				return
			}
			if clientPID(conn) == pid {
				ch <- accepted{conn, nil}
				return
			}
			conn.Close()
		}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case a := <-ch:
		if a.err != nil {
			return nil, nil, fmt.Errorf("protocol pipe %s: %w", c.path, a.err)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.closed {
			a.conn.Close()
			return nil, nil, errPipeGone
		}
		c.conn = a.conn
		return a.conn, a.conn, nil
	case <-exited:
		return nil, nil, errPipeGone
	case <-timer.C:
		return nil, nil, fmt.Errorf("%w %s within %s", errPipeTimeout, c.path, wait)
	}
}

// errPipeGone says the runner exited before it opened its pipe.
var errPipeGone = errors.New("the runner exited before it connected to its protocol pipe")

// clientPID is the process id of the client at the other end of conn, or
// -1 when it cannot be told.
func clientPID(conn net.Conn) int {
	f, ok := conn.(interface{ Fd() uintptr })
	if !ok {
		return -1
	}
	var pid uint32
	if err := windows.GetNamedPipeClientProcessId(windows.Handle(f.Fd()), &pid); err != nil {
		return -1
	}
	return int(pid)
}

// close closes the connection once the runner has exited: a grandchild
// that inherited nothing holds no end of it, but the job may still be
// ending.
func (c *channel) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.conn != nil {
		c.conn.Close()
	}
}
