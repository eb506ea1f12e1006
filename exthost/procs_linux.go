package exthost

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
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

// descendants lists the processes below pid, read from /proc: from the
// children files of its threads, breadth first, where the kernel has them,
// else from the parent of every process.
func descendants(pid int) []int {
	if !childrenFiles() {
		return descendantsByScan(pid)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 && len(out) < maxDescendants {
		for _, c := range children(queue[0]) {
			out = append(out, c)
			queue = append(queue, c)
		}
		queue = queue[1:]
	}
	return out
}

// maxDescendants bounds a walk of the process tree.
const maxDescendants = 1 << 16

// childrenFiles reports whether the kernel has /proc/PID/task/TID/children
// (CONFIG_PROC_CHILDREN). Reading those costs a file per thread of each
// process in the tree; the scan reads the stat file of every process on
// the machine, twice per stop, which was most of spirit's own CPU time per
// extension when hundreds are started.
var childrenFiles = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children")
	return err == nil
})

// children lists the children of pid, which any of its threads may have
// forked (or, for a child subreaper, adopted). A process that is gone has
// none.
func children(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// descendantsByScan lists the processes below pid from the parent of every
// process in /proc.
func descendantsByScan(pid int) []int {
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
	for len(queue) > 0 && len(out) < maxDescendants {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// Supervised rewrites cmd so that exe runs it under Supervise (exe must
// route SuperviseCommand to Supervise). Use it in Options.Sandbox where no
// sandbox with a PID namespace of its own contains the extension: then
// nothing it spawns outlives it, nor spirit, even when spirit is killed
// with SIGKILL.
func Supervised(cmd *exec.Cmd, exe string) {
	cmd.Args = append([]string{"spirit", SuperviseCommand, cmd.Path}, cmd.Args...)
	cmd.Path = exe
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = sysProcAttr()
	}
	// A signal the supervisor catches, to end what is below it first.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
}

// Supervise is the supervisor process (spirit's hidden SuperviseCommand):
// args are the program's path and its argv. It makes itself a child
// subreaper, so everything the program spawns stays below it even after a
// parent in between dies or a child calls setsid, then runs the program
// with its own standard streams and fd 3 and 4. It ends everything below
// it, and exits the way the program did, when the program exits; and at
// once when it gets SIGTERM, SIGINT or SIGHUP or when spirit dies (its
// parent-death signal). Without it an extension's detached grandchild
// outlives spirit killed by SIGKILL, where no sandbox has a PID namespace.
func Supervise(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("%s: want PATH ARGV0 [ARG]..., got %q", SuperviseCommand, args)
	}
	parent := os.Getppid()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// Supervised set SIGTERM as the parent-death signal (a per-thread
	// setting, so it cannot be changed here): make sure spirit did not die
	// before the handler was in place.
	if os.Getppid() != parent {
		return fmt.Errorf("%s: spirit exited before the extension started", SuperviseCommand)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("%s: child subreaper: %w", SuperviseCommand, err)
	}
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr, os.NewFile(3, "to-child"), os.NewFile(4, "from-child")}
	proc, err := os.StartProcess(args[0], args[1:], &os.ProcAttr{Env: os.Environ(), Files: files})
	// Our copies of the protocol pipes go: spirit must see the end of the
	// pipe when the program's side closes.
	files[3].Close()
	files[4].Close()
	if err != nil {
		return fmt.Errorf("%s: %w", SuperviseCommand, err)
	}
	self := os.Getpid()
	// The supervisor lives as long as the extension: hand back to the
	// system what the start of spirit allocated.
	debug.FreeOSMemory()
	go func() {
		<-sigs
		killDescendants(self)
	}()
	var status syscall.WaitStatus
	done := false
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			break // ECHILD: nothing is left below us
		}
		if pid == proc.Pid {
			status, done = ws, true
		}
		if done {
			// The program ended: what it left behind goes too.
			killDescendants(self)
		}
	}
	if status.Signaled() {
		signal.Reset(status.Signal())
		_ = syscall.Kill(self, status.Signal())
	}
	os.Exit(status.ExitStatus())
	return nil
}
