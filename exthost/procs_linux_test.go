//go:build linux

package exthost

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"syscall"
	"testing"
)

// descendants walks the children files of every thread: a child forked by
// a thread other than the main one (Go forks from any of its threads) is
// listed only under that thread. Each shell here is forked from a thread of
// its own and has a plain and a detached (setsid) child; the walk finds
// them all, as the scan of every process does.
func TestDescendantsFromEveryThread(t *testing.T) {
	if !childrenFiles() {
		t.Skip("this kernel has no /proc/PID/task/TID/children")
	}
	hold := make(chan struct{})
	defer close(hold)
	type started struct {
		pid int
		err error
	}
	var want []int
	for range 4 {
		ch := make(chan started)
		go func() {
			// The thread stays locked and alive until the test ends, so the
			// shell stays its child.
			runtime.LockOSThread()
			cmd := exec.Command("sh", "-c", "setsid sleep 60 & sleep 60 & echo ready; wait")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			out, err := cmd.StdoutPipe()
			if err == nil {
				err = cmd.Start()
			}
			if err == nil {
				_, err = bufio.NewReader(out).ReadString('\n')
			}
			if cmd.Process != nil {
				ch <- started{cmd.Process.Pid, err}
			} else {
				ch <- started{0, err}
			}
			<-hold
			killDescendants(cmd.Process.Pid)
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		}()
		s := <-ch
		if s.err != nil {
			t.Fatal(s.err)
		}
		below := descendantsByScan(s.pid)
		if len(below) != 2 {
			t.Fatalf("the shell %d has %v below it, want its 2 sleeps", s.pid, below)
		}
		want = append(want, s.pid)
		want = append(want, below...)
	}
	self := os.Getpid()
	walked, scanned := descendants(self), descendantsByScan(self)
	for _, pid := range want {
		if !slices.Contains(walked, pid) {
			t.Errorf("descendants(%d) = %v misses %d (of %v)", self, walked, pid, want)
		}
		if !slices.Contains(scanned, pid) {
			t.Errorf("descendantsByScan(%d) = %v misses %d (of %v)", self, scanned, pid, want)
		}
	}
}
