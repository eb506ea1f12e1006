// Package ptytest gives tests a real pseudo-terminal, so what spirit draws
// on a terminal (the progress line, the pager) is tested where users see
// it, and a small model of a terminal screen to read the result.
package ptytest

import (
	"errors"
	"os"
	"os/exec"
)

// ErrUnsupported is returned by Open where the test has no pseudo-terminal
// of its own (only Linux is supported: the other systems open theirs
// through calls x/sys does not wrap the same way).
var ErrUnsupported = errors.New("ptytest: no pseudo-terminal on this system")

// PTY is an open pseudo-terminal: the program under test gets TTY as its
// standard streams, the test reads what it drew from Master.
type PTY struct {
	Master *os.File
	TTY    *os.File

	cmd   *exec.Cmd
	drawn chan []byte
}

// Close closes both ends.
func (p *PTY) Close() error {
	p.TTY.Close() // Start closed it already
	return p.Master.Close()
}
