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

// noisePatterns are Node's warning lines, compiled at first use (package
// init stays cheap: every command pays for it).
type noisePatterns struct {
	permission, typeless, reparsing, eliminate, trace *regexp.Regexp
}

var noise = sync.OnceValue(func() *noisePatterns {
	return &noisePatterns{
		permission: regexp.MustCompile(`^\(node:\d+\) (SecurityWarning: The flag --allow-[a-z-]+ must be used with extreme caution\. It could invalidate the permission model\.|ExperimentalWarning: Permission is an experimental feature and might change at any time)\r?\n$`),
		typeless:   regexp.MustCompile(`^\(node:\d+\) \[MODULE_TYPELESS_PACKAGE_JSON\] Warning: .*\r?\n$`),
		reparsing:  regexp.MustCompile(`^Reparsing as ES module because module syntax was detected\. This incurs a performance overhead\.\r?\n$`),
		eliminate:  regexp.MustCompile(`^To eliminate this warning, add "type": "module" to .*package\.json\.\r?\n$`),
		trace:      regexp.MustCompile("^\\(Use `node --trace-warnings \\.\\.\\.` to show where the warning was created\\)\\r?\\n$"),
	}
})

// noiseLine says whether line is one of Node's warning lines.
func noiseLine(line string) bool {
	n := noise()
	for _, re := range []*regexp.Regexp{n.permission, n.typeless, n.reparsing, n.eliminate, n.trace} {
		if re.MatchString(line) {
			return true
		}
	}
	return false
}

func (n *nodeNoise) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	prev := n.after
	n.after = afterNothing
	re := noise()
	switch {
	case re.permission.Match(p):
		n.after = afterWarning
	case re.typeless.Match(p):
		n.after = afterTypeless
	case prev == afterTypeless && re.reparsing.Match(p):
		n.after = afterReparsing
	case prev == afterReparsing && re.eliminate.Match(p):
		n.after = afterWarning
	case prev != afterNothing && re.trace.Match(p):
	default:
		if _, err := n.w.Write(p); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
