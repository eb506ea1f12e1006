package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	goldenfile "github.com/spiritagents/spirit/internal/testutil/golden"
)

// TestMain lets testscript run this test binary as the `spirit` command, so
// the scripts drive the real command line: flags, exit codes, stdout, stderr.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"spirit": func() { os.Exit(Main()) },
	})
}

// TestScript runs every testdata/script/*.txtar. Each script gets its own
// data directory ($SPIRIT_AGENT_DATA_DIR) and HOME inside $WORK, and $REPO
// points at the repository root for shared fixtures.
func TestScript(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(file), "..", "..")
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Cmds:                scriptCmds(),
		Condition:           scriptCondition,
		UpdateScripts:       goldenfile.Update(),
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("SPIRIT_AGENT_DATA_DIR", filepath.Join(env.WorkDir, "data"))
			env.Setenv("SPIRIT_HOST", "")
			env.Setenv("SPIRIT_REGISTRY", "")
			if p := os.Getenv("PATH"); p != "" {
				env.Setenv("PATH", p)
			}
			return nil
		},
	})
}

// scriptCondition answers [sessionbus]: a D-Bus session bus sits at the
// place the bus library looks without DBUS_SESSION_BUS_ADDRESS, so a script
// cannot take it away.
func scriptCondition(cond string) (bool, error) {
	if cond == "sessionbus" {
		_, err := os.Stat(filepath.Join("/run/user", strconv.Itoa(os.Getuid()), "bus"))
		return err == nil, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}
