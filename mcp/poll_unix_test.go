//go:build unix

package mcp

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Standard input from a pipe is read through the runtime's poller while the
// session runs (O_NONBLOCK on the pipe), Close ends a Read waiting on it,
// and the pipe is blocking again afterwards: the client's pipe is left as
// it was given.
func TestStdioPipeIsPolled(t *testing.T) {
	r, w, fd := blockingPipe(t)
	defer w.Close()
	nonblock := func() bool {
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if err != nil {
			t.Fatal(err)
		}
		return fl&unix.O_NONBLOCK != 0
	}
	conn, err := NewStdioTransport(r, io.Discard, nil).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Read(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !nonblock() {
		t.Error("standard input is read with blocking reads, not through the poller")
	}
	read := make(chan error, 1)
	go func() {
		_, err := conn.Read(t.Context())
		read <- err
	}()
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-read:
		if !errors.Is(err, io.EOF) {
			t.Errorf("Read after Close: %v, want io.EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end a waiting Read")
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil {
		t.Error("Close left the source open")
	}
}

// blockingPipe is a pipe whose read end is blocking, as the standard input
// a client gives is (os.Pipe makes non-blocking, polled files).
func blockingPipe(t *testing.T) (r, w *os.File, rfd int) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil { // pipe2 is missing on darwin
		t.Fatal(err)
	}
	unix.CloseOnExec(p[0])
	unix.CloseOnExec(p[1])
	return os.NewFile(uintptr(p[0]), "stdin"), os.NewFile(uintptr(p[1]), "client"), p[0]
}

// A pipe given to the transport and not closed by it (the session ends
// another way) is blocking again once the connection is closed.
func TestStdioPipeBlockingAfterClose(t *testing.T) {
	r, w, fd := blockingPipe(t)
	defer r.Close()
	defer w.Close()
	// An io.Reader that is not an io.Closer: the transport cannot close it.
	src := struct{ io.Reader }{r}
	conn, err := NewStdioTransport(src, io.Discard, nil).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fl&unix.O_NONBLOCK != 0 {
		t.Error("the pipe is left non-blocking")
	}
}
