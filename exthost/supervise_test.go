//go:build linux

package exthost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spiritagents/spirit/install"
)

// TestMain lets the test binary act as spirit's supervisor, as the real
// binary does for SuperviseCommand.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == SuperviseCommand {
		if err := Supervise(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// spirit killed with SIGKILL while the extension runs (no sandbox): the
// runner, a plain child, a detached child in its own session and a child
// holding the log pipe all end with it. The test runs the host in a child
// process (the "spirit" that is killed); the extension hands the pids over
// through a FIFO.
func TestNoOrphansAfterSpiritKilled(t *testing.T) {
	if fifo := os.Getenv("SPIRIT_TEST_KILLED_HOST_FIFO"); fifo != "" {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		h := hostileHost(t, func(o *Options) {
			o.CallTimeout = time.Minute
			o.Sandbox = func(_ context.Context, _ *install.Installed, cmd *exec.Cmd) error {
				Supervised(cmd, exe)
				return nil
			}
		})
		_, err = call(t, h, "@fixture/hostile/spawn", `{"pidfile":`+quote(fifo)+`}`)
		t.Fatalf("spawn returned: %v", err) // it spins until spirit is killed
	}
	fifo := filepath.Join(t.TempDir(), "pids")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Opened read-write, the FIFO never blocks the open and never reports
	// the end: the read deadline bounds the wait.
	r, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(exe, "-test.run=^TestNoOrphansAfterSpiritKilled$", "-test.count=1")
	host.Env = append(os.Environ(), "SPIRIT_TEST_KILLED_HOST_FIFO="+fifo)
	host.Stdout, host.Stderr = os.Stderr, os.Stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = host.Process.Kill(); _ = host.Wait() }()
	if err := r.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	var pids []int
	if err := json.NewDecoder(r).Decode(&pids); err != nil || len(pids) != 3 {
		t.Fatalf("pids %v: %v", pids, err)
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = host.Wait()
	waitGone(t, pids, 5*time.Second)
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d (of %v) survived spirit's SIGKILL", pid, pids)
		}
	}
}

// waitGone waits until every process of pids has ended, at most d: a pidfd
// becomes readable when its process ends.
func waitGone(t *testing.T, pids []int, d time.Duration) {
	t.Helper()
	var fds []unix.PollFd
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if errors.Is(err, unix.ESRCH) {
			continue // already gone
		}
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	}
	deadline := time.Now().Add(d)
	for remaining := len(fds); remaining > 0; {
		wait := time.Until(deadline)
		if wait <= 0 {
			return
		}
		n, err := unix.Poll(fds, int(wait.Milliseconds())+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		remaining = 0
		for i := range fds {
			if fds[i].Revents == 0 {
				remaining++
			} else {
				fds[i].Events = 0
			}
		}
	}
}
