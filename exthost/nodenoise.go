package exthost

import (
	"io"
	"regexp"
	"sync"
)

// nodeNoise drops from an extension's standard error the warnings Node
// prints about how spirit starts it, so that its log holds what the
// extension said:
//
//   - the SecurityWarning of each --allow-… flag of the permission model
//     ("The flag --allow-child-process must be used with extreme caution.
//     It could invalidate the permission model."), and Node 20's
//     ExperimentalWarning that the permission model is experimental;
//   - the MODULE_TYPELESS_PACKAGE_JSON warning (main is an ES module in a
//     package without "type": "module"), with its continuation lines:
//     `spirit extension validate --activate` reports it instead;
//   - the "(Use `node --trace-warnings ...`" line Node adds after the
//     first warning, when it follows one of these.
//
// Only these exact texts are dropped; every other line, warnings of the
// extension's own included, passes. It reads whole lines, as the
// maskWriter in front of it writes them.
type nodeNoise struct {
	mu sync.Mutex
	w  io.Writer
	// after is what the previous line was: a dropped warning (whose
	// trace hint or continuation may follow), or nothing.
	after int
}

const (
	afterNothing = iota
	afterWarning
	afterTypeless  // the first line of the module-type warning
	afterReparsing // its second line
)

var (
	permissionWarning = regexp.MustCompile(`^\(node:\d+\) (SecurityWarning: The flag --allow-[a-z-]+ must be used with extreme caution\. It could invalidate the permission model\.|ExperimentalWarning: Permission is an experimental feature and might change at any time)\r?\n$`)
	typelessWarning   = regexp.MustCompile(`^\(node:\d+\) \[MODULE_TYPELESS_PACKAGE_JSON\] Warning: .*\r?\n$`)
	reparsingLine     = regexp.MustCompile(`^Reparsing as ES module because module syntax was detected\. This incurs a performance overhead\.\r?\n$`)
	eliminateLine     = regexp.MustCompile(`^To eliminate this warning, add "type": "module" to .*package\.json\.\r?\n$`)
	traceHint         = regexp.MustCompile("^\\(Use `node --trace-warnings \\.\\.\\.` to show where the warning was created\\)\\r?\\n$")
)

func (n *nodeNoise) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	prev := n.after
	n.after = afterNothing
	switch {
	case permissionWarning.Match(p):
		n.after = afterWarning
	case typelessWarning.Match(p):
		n.after = afterTypeless
	case prev == afterTypeless && reparsingLine.Match(p):
		n.after = afterReparsing
	case prev == afterReparsing && eliminateLine.Match(p):
		n.after = afterWarning
	case prev != afterNothing && traceHint.Match(p):
	default:
		if _, err := n.w.Write(p); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
