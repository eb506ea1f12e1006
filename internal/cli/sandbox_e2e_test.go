package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/spiritagents/spirit/sandbox"
)

// TestScriptSandbox runs the hostile-extension suite, testdata/sandbox/*.txtar,
// through the real command line and real Node.js, with bubblewrap, with
// Landlock, and with the sandbox off. Besides the environment of TestScript, $HTTP_URL is a
// server on 127.0.0.1 that answers "pong", and the conditions [bwrap] and
// [landlock] say whether bubblewrap and Landlock can run here.
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
	go func() { // ends when the listener closes
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			fmt.Fprintln(c, "bus-secret")
			c.Close()
		}
	}()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/sandbox",
		RequireExplicitExec: true,
		Cmds:                sandboxCmds(),
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "bwrap":
				return st.Kind == sandbox.KindBwrap, nil
			case "landlock":
				return ll.Kind == sandbox.KindLandlock, nil
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
			if p := os.Getenv("PATH"); p != "" {
				env.Setenv("PATH", p)
			}
			return nil
		},
	})
}
