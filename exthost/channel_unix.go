//go:build unix

package exthost

import (
	"io"
	"os"
	"os/exec"
	"time"
)

// channel is the runner's protocol connection before and while the
// process starts. On Unix it is two pipes the child inherits as fd 3
// (host to runner) and fd 4 (runner to host).
type channel struct {
	toChildR, toChildW, fromChildR, fromChildW *os.File
}

// openChannel makes the pipes and hands the child's ends to cmd.
func openChannel(cmd *exec.Cmd) (*channel, error) {
	toChildR, toChildW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromChildR, fromChildW, err := os.Pipe()
	if err != nil {
		toChildR.Close()
		toChildW.Close()
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{toChildR, fromChildW}
	return &channel{toChildR, toChildW, fromChildR, fromChildW}, nil
}

// started closes the child's ends in spirit, so the end of the pipe is
// seen when the child's side closes; failed closes everything after a
// start that did not happen.
func (c *channel) started() {
	c.toChildR.Close()
	c.fromChildW.Close()
}

func (c *channel) failed() {
	c.started()
	c.toChildW.Close()
	c.fromChildR.Close()
}

// connect returns spirit's ends: the runner's output and its input.
func (c *channel) connect(int, <-chan struct{}, time.Duration) (io.ReadCloser, io.WriteCloser, error) {
	return c.fromChildR, c.toChildW, nil
}

// close closes spirit's read end once the runner has exited, so a
// grandchild that holds fd 4 does not keep the connection open.
func (c *channel) close() { c.fromChildR.Close() }
