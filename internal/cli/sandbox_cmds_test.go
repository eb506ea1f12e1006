//go:build linux

package cli

import (
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// sandboxCmds are extra commands for the sandbox scripts:
//
//	mkfifo FILE        make a named pipe
//	readpids FIFO VAR  read a JSON array of pids from FIFO (30 s at most) into $VAR
//	gone PID...        wait (5 s at most) until each process has ended; fail naming those left
func sandboxCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"mkfifo": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 1 {
				ts.Fatalf("usage: mkfifo FILE")
			}
			ts.Check(unix.Mkfifo(ts.MkAbs(args[0]), 0o600))
		},
		"readpids": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 2 {
				ts.Fatalf("usage: readpids FIFO VAR")
			}
			// Read-write: the open does not wait for a writer, and the
			// deadline bounds the read.
			f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_RDWR, 0)
			ts.Check(err)
			defer f.Close()
			ts.Check(f.SetReadDeadline(time.Now().Add(30 * time.Second)))
			var pids []int
			ts.Check(json.NewDecoder(f).Decode(&pids))
			var s []string
			for _, p := range pids {
				s = append(s, strconv.Itoa(p))
			}
			ts.Setenv(args[1], strings.Join(s, " "))
		},
		"gone": func(ts *testscript.TestScript, neg bool, args []string) {
			var left []string
			deadline := time.Now().Add(5 * time.Second)
			for _, a := range args {
				for _, f := range strings.Fields(a) {
					pid, err := strconv.Atoi(f)
					ts.Check(err)
					if !waitPid(pid, time.Until(deadline)) {
						left = append(left, f)
						_ = unix.Kill(pid, unix.SIGKILL)
					}
				}
			}
			if (len(left) > 0) != neg {
				ts.Fatalf("processes left: %v", left)
			}
		},
	}
}

// waitPid waits at most d for pid to end (a zombie has ended) and reports
// whether it did: its pidfd becomes readable when it ends.
func waitPid(pid int, d time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return true
	}
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(d)
	for {
		wait := time.Until(deadline)
		if wait < 0 {
			wait = 0
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(wait.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n > 0
	}
}
