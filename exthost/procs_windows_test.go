package exthost

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// TestMain lets the test binary play the runner's child: with
// SPIRIT_TEST_CHILD set it runs that role instead of the tests.
func TestMain(m *testing.M) {
	switch os.Getenv("SPIRIT_TEST_CHILD") {
	case "":
		os.Exit(m.Run())
	case "tree":
		// Spawns a grandchild, prints both pids, and waits to be killed.
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), "SPIRIT_TEST_CHILD=sleep")
		if err := gc.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(os.Getpid(), gc.Process.Pid)
		time.Sleep(time.Minute)
	case "sleep":
		time.Sleep(time.Minute)
	case "dial":
		// Opens the pipe named last on the command line and echoes a line.
		c, err := winio.DialPipe(os.Args[len(os.Args)-1], nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		line, _ := bufio.NewReader(c).ReadString('\n')
		fmt.Fprint(c, "echo "+line)
		c.Close()
	}
	os.Exit(0)
}

func running(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}

// underWine says whether this runs under Wine, whose ntdll exports
// wine_get_version (Windows' does not).
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// The runner starts suspended in its Job Object, so what it spawns is in
// the job too; killGroup ends both.
func TestJobObjectKillsTheTree(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "SPIRIT_TEST_CHILD=tree")
	cmd.SysProcAttr = sysProcAttr()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := startGroup(cmd); err != nil {
		_ = cmd.Process.Kill()
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		killGroup(cmd.Process.Pid)
		t.Fatalf("the child said %q: %v", line, err)
	}
	var pids []int
	for _, f := range strings.Fields(line) {
		n, err := strconv.Atoi(f)
		if err != nil {
			killGroup(cmd.Process.Pid)
			t.Fatalf("the child said %q", line)
		}
		pids = append(pids, n)
	}
	// The grandchild is a process of its own: only its job ends it with
	// the runner (Windows does not kill children with their parent).
	killGroup(cmd.Process.Pid)
	_ = cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for running(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if running(pid) {
			t.Errorf("process %d (of %v) survived the job's termination", pid, pids)
		}
	}
}

// The protocol pipe: the runner (the process whose pid connect is given)
// opens it by the path in its arguments and talks over it; nobody can
// connect after it.
func TestProtocolPipe(t *testing.T) {
	if underWine() {
		t.Skip("Wine 8 connects a client to the listener's reserved first pipe instance, which Windows keeps disconnected, " +
			"so go-winio's Accept never sees the runner (go-winio's own TestDialListenerTimesOut fails under Wine the same way)")
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "SPIRIT_TEST_CHILD=dial")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	defer func() {
		if stderr.Len() > 0 {
			t.Logf("the child said: %s", stderr.String())
		}
	}()
	ch, err := openChannel(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		ch.failed()
		t.Fatal(err)
	}
	ch.started()
	exited := make(chan struct{})
	r, w, err := ch.connect(cmd.Process.Pid, exited, 10*time.Second)
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatal(err)
	}
	fmt.Fprintln(w, "hello")
	got, _ := bufio.NewReader(r).ReadString('\n')
	if got != "echo hello\n" {
		t.Errorf("the runner answered %q, want %q", got, "echo hello\n")
	}
	_ = cmd.Wait()
	if c, err := winio.DialPipe(ch.path, nil); err == nil {
		c.Close()
		t.Errorf("a second client connected to %s", ch.path)
	}
	ch.close()
}

// A client that is not the runner is refused: connect waits for the
// runner and times out.
func TestProtocolPipeRefusesOthers(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	ch, err := openChannel(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.close()
	done := make(chan error, 1)
	go func() {
		c, err := winio.DialPipe(ch.path, nil)
		if err == nil {
			_, err = c.Read(make([]byte, 1))
			c.Close()
		}
		done <- err
	}()
	if _, _, err := ch.connect(os.Getpid()+1, make(chan struct{}), 2*time.Second); err == nil {
		t.Fatal("connect accepted a client that is not the runner")
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("the other client read from the pipe")
		}
	case <-time.After(5 * time.Second):
		t.Error("the other client was not disconnected")
	}
}
