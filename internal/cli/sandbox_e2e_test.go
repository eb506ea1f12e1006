package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/spiritagents/spirit/sandbox"
)

// TestScriptSandbox runs the hostile-extension suite, testdata/sandbox/*.txtar,
// through the real command line and real Node.js, with bubblewrap, with
// Landlock, and with the sandbox off. Besides the environment of TestScript, $HTTP_URL is a
// server on 127.0.0.1 that answers "pong", $UNIX_SOCK a Unix socket and
// $ABSTRACT_SOCK an abstract Unix socket of the host (both answer
// "bus-secret"), $UDP_PORT a UDP listener on 127.0.0.1 (the command
// `udpgot TEXT` says whether a datagram with TEXT arrived), $NODE_BIN the
// resolved Node.js executable; the conditions [bwrap] and [landlock] say
// whether bubblewrap and Landlock can run here, [scope] whether the kernel
// has Landlock's abstract-socket scoping (ABI 6).
func TestScriptSandbox(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(file), "..", "..")
	st, err := sandbox.Probe(context.Background(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ll, _ := sandbox.Probe(context.Background(), func(string) string { return "landlock" })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "pong") }))
	t.Cleanup(srv.Close) // the scripts run in parallel, after Run returns
	sock := filepath.Join(t.TempDir(), "bus")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go answer(ln, "bus-secret")
	abstract := ""
	if runtime.GOOS == "linux" {
		abstract = fmt.Sprintf("spirit-test-%d", os.Getpid())
		// The name as it is, and padded with NULs to the whole sun_path, as
		// a libuv that connects with sizeof(sockaddr_un) asks for it.
		for _, name := range []string{abstract, abstract + strings.Repeat("\x00", 107-len(abstract))} {
			aln, err := net.Listen("unix", "@"+name)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { aln.Close() })
			go answer(aln, "bus-secret")
		}
	}
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { udp.Close() })
	got := &datagrams{}
	go got.read(udp)
	node := ""
	if p, err := exec.LookPath("node"); err == nil {
		node, _ = filepath.EvalSymlinks(p)
	}
	cmds := sandboxCmds()
	cmds["udpgot"] = got.cmd
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/sandbox",
		RequireExplicitExec: true,
		Cmds:                cmds,
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "bwrap":
				return st.Kind == sandbox.KindBwrap, nil
			case "landlock":
				return ll.Kind == sandbox.KindLandlock, nil
			case "scope":
				return sandbox.LandlockABI() >= 6, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("SPIRIT_AGENT_DATA_DIR", filepath.Join(env.WorkDir, "data"))
			env.Setenv("SPIRIT_HOST", "")
			env.Setenv("SPIRIT_REGISTRY", "")
			env.Setenv("SPIRIT_SANDBOX", "")
			env.Setenv("HTTP_URL", srv.URL)
			env.Setenv("UNIX_SOCK", sock)
			env.Setenv("ABSTRACT_SOCK", abstract)
			env.Setenv("UDP_PORT", strconv.Itoa(udp.LocalAddr().(*net.UDPAddr).Port))
			env.Setenv("NODE_BIN", node)
			if p := os.Getenv("PATH"); p != "" {
				env.Setenv("PATH", p)
			}
			return nil
		},
	})
}

// answer writes line to each connection of ln until ln is closed.
func answer(ln net.Listener, line string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		fmt.Fprintln(c, line)
		c.Close()
	}
}

// datagrams keeps what a UDP listener received.
type datagrams struct {
	mu  sync.Mutex
	got []string
}

// read records each datagram until conn is closed.
func (d *datagrams) read(conn net.PacketConn) {
	buf := make([]byte, 2048)
	for {
		n, _, err := conn.ReadFrom(buf)
		if err != nil {
			return
		}
		d.mu.Lock()
		d.got = append(d.got, string(buf[:n]))
		d.mu.Unlock()
	}
}

// cmd is `udpgot TEXT`: it waits (2 s at most) for a datagram holding TEXT;
// negated, it fails when one arrived within 500 ms.
func (d *datagrams) cmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: udpgot TEXT")
	}
	wait := 2 * time.Second
	if neg {
		wait = 500 * time.Millisecond
	}
	deadline := time.Now().Add(wait)
	for {
		d.mu.Lock()
		found := slices.ContainsFunc(d.got, func(s string) bool { return strings.Contains(s, args[0]) })
		d.mu.Unlock()
		if found || time.Now().After(deadline) {
			if found == neg {
				ts.Fatalf("datagram with %q received: %v", args[0], found)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
