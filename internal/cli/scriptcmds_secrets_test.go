package cli

import (
	"os"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/spiritagents/spirit/internal/testutil/silentbus"
)

// addSecretScriptCmds adds the commands of the secret store scripts:
//
//	silentbus PATH        a Unix socket at PATH that accepts D-Bus clients and never answers
//	clock start           remember the time
//	clock below DURATION  fail unless less than DURATION passed since clock start
//	filemode PATH MODE    fail unless PATH's permission bits are the octal MODE
func addSecretScriptCmds(cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)) {
	cmds["silentbus"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: silentbus PATH")
		}
		stop, err := silentbus.Listen(ts.MkAbs(args[0]))
		ts.Check(err)
		ts.Defer(stop)
	}
	cmds["clock"] = func(ts *testscript.TestScript, neg bool, args []string) {
		switch {
		case len(args) == 1 && args[0] == "start" && !neg:
			ts.Setenv("CLOCK_START", strconv.FormatInt(time.Now().UnixNano(), 10))
		case len(args) == 2 && args[0] == "below":
			start, err := strconv.ParseInt(ts.Getenv("CLOCK_START"), 10, 64)
			ts.Check(err)
			limit, err := time.ParseDuration(args[1])
			ts.Check(err)
			took := time.Since(time.Unix(0, start))
			if (took < limit) == neg {
				ts.Fatalf("%v passed since clock start (limit %v)", took, limit)
			}
			ts.Logf("%v passed since clock start", took)
		default:
			ts.Fatalf("usage: clock start | clock below DURATION")
		}
	}
	cmds["filemode"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: filemode PATH MODE")
		}
		want, err := strconv.ParseUint(args[1], 8, 32)
		ts.Check(err)
		fi, err := os.Stat(ts.MkAbs(args[0]))
		ts.Check(err)
		if (uint64(fi.Mode().Perm()) == want) == neg {
			ts.Fatalf("%s has mode %04o", args[0], fi.Mode().Perm())
		}
	}
}
