package runtime

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr puts the extension's process in its own process group, so
// stopping it reaches what it spawned, and has the kernel kill it if
// spirit dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killDescendants stops and kills every process below pid, including ones
// that left its process group (a detached child calls setsid). Each round
// freezes what it finds with SIGSTOP before the next look, so a process
// cannot fork its way out; the rounds are bounded.
func killDescendants(pid int) {
	seen := map[int]bool{}
	for range 8 {
		found := false
		for _, d := range descendants(pid) {
			if !seen[d] {
				seen[d] = true
				found = true
				_ = syscall.Kill(d, syscall.SIGSTOP)
			}
		}
		if !found {
			break
		}
	}
	for d := range seen {
		_ = syscall.Kill(d, syscall.SIGKILL)
	}
}

// descendants lists the processes below pid, read from /proc.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		children[ppid] = append(children[ppid], child)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 && len(out) < 1<<16 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
