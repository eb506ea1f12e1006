package ptytest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Open opens a pseudo-terminal of cols columns and rows rows.
func Open(cols, rows int) (*PTY, error) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	fd := int(master.Fd())
	// unlockpt, then ptsname.
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, fmt.Errorf("unlockpt: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, fmt.Errorf("ptsname: %w", err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, err
	}
	p := &PTY{Master: master, TTY: tty}
	if err := p.Resize(cols, rows); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Resize sets the terminal's size.
func (p *PTY) Resize(cols, rows int) error {
	return unix.IoctlSetWinsize(int(p.Master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)})
}

// Start starts cmd with the terminal as its standard streams and its
// controlling terminal (in a session of its own, as a shell starts a
// program), and reads everything it draws; Wait returns that.
func (p *PTY) Start(cmd *exec.Cmd) error {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.TTY, p.TTY, p.TTY
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		return err
	}
	p.cmd = cmd
	p.drawn = make(chan []byte, 1)
	go func() {
		var buf bytes.Buffer
		// The read ends with EIO once the program and every child of it
		// closed the terminal.
		io.Copy(&buf, p.Master)
		p.drawn <- buf.Bytes()
	}()
	// The test keeps no copy of the terminal end, or the read never ends.
	return p.TTY.Close()
}

// Wait waits for the command started by Start, at most timeout (then it
// is killed), and returns what it drew and its error.
func (p *PTY) Wait(timeout time.Duration) ([]byte, error) {
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(timeout):
		p.cmd.Process.Kill()
		<-done
		err = fmt.Errorf("ptytest: %s still running after %s, killed", p.cmd.Path, timeout)
	}
	select {
	case b := <-p.drawn:
		return b, err
	case <-time.After(5 * time.Second):
		// A child of the program (a pager) may still hold the terminal.
		p.Master.Close()
		return <-p.drawn, errors.Join(err, errors.New("ptytest: the terminal was still open 5 s after the program ended"))
	}
}
