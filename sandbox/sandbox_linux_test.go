//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSandboxKillsDescendants runs real Node in bubblewrap: a detached
// grandchild does not outlive the extension, because the PID namespace ends
// with it. Without the sandbox (Kind none) the same grandchild lives on.
func TestSandboxKillsDescendants(t *testing.T) {
	st, err := Probe(context.Background(), func(string) string { return "" })
	if err != nil || st.Kind != KindBwrap {
		t.Skipf("bubblewrap cannot run here: %s", st.Reason)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	for _, kind := range []Kind{KindNone, KindBwrap} {
		pkg := t.TempDir()
		marker := "spirit-orphan-" + filepath.Base(filepath.Dir(pkg)) + string(kind)
		script := `const { spawn } = require('node:child_process');
const c = spawn('/bin/sh', ['-c', 'sleep 300; : ` + marker + `'], { detached: true, stdio: 'ignore' }); c.unref();
console.log('spawned');`
		c, err := Status{Kind: kind, Path: st.Path}.Wrap(context.Background(), Spec{ID: "t", Node: node, NodeArgs: []string{"-e", script}, PackageDir: pkg})
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(c.Path, c.Args[1:]...)
		cmd.Env, cmd.Dir = c.Env, c.Dir
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "spawned") {
			t.Fatalf("node (%s): %v\n%s", kind, err, out)
		}
		limit := 5 * time.Second
		if kind == KindNone {
			limit = 300 * time.Millisecond // it is expected to stay
		}
		alive := waitGone(marker, limit)
		if kind == KindNone {
			if !alive {
				t.Fatal("without a sandbox the detached grandchild is gone too: the test cannot tell")
			}
			killWith(marker)
			continue
		}
		if alive {
			killWith(marker)
			t.Fatalf("a process with %s outlived the sandbox", marker)
		}
	}
}

// waitGone polls (bounded: the kernel reaps a dead PID namespace
// asynchronously and sends no signal to us) until no process has s in its
// command line; it reports whether one is still there.
func waitGone(s string, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for len(pidsWith(s)) > 0 {
		if time.Now().After(deadline) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func killWith(s string) {
	for _, pid := range pidsWith(s) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func pidsWith(s string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) {
			pids = append(pids, pid)
		}
	}
	return pids
}
