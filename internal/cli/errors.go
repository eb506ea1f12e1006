package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/manifest"
)

// Exit codes, as DESIGN.md fixes them.
const (
	ExitOK       = 0
	ExitFailure  = 1
	ExitUsage    = 2
	ExitProblems = 3
	// ExitTool is the exit status of a tool that ran and failed on its own
	// (its handler threw, or its result broke its outputSchema), told apart
	// from spirit's own failures (1).
	ExitTool = 4
	// ExitInterrupted is 128 + SIGINT, as a shell reports a process that
	// an interrupt ended: the run was cancelled by SIGINT or SIGTERM.
	ExitInterrupted = 130
)

// usageError is a mistake in how the command was called.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, a ...any) error {
	return &usageError{fmt.Errorf(format, a...)}
}

// problemsError says that a check ran and found problems: exit 3. The
// problems themselves were already printed, so its message may be empty.
type problemsError struct{ msg string }

func (e *problemsError) Error() string { return e.msg }

// errInterrupted replaces whatever a command returned after the run's
// context was cancelled by a signal: the cause is the interrupt, not the
// context error it produced further down.
var errInterrupted = &exitError{msg: "Interrupted", code: ExitInterrupted}

// exitError is a message with its own exit code. Without a message it only
// sets the exit code: what went wrong was already printed.
type exitError struct {
	msg  string
	code int
}

func (e *exitError) Error() string { return e.msg }
func (e *exitError) ExitCode() int { return e.code }

// hinted attaches a remedy to an error.
type hinted struct {
	err  error
	hint string
}

func (e *hinted) Error() string { return e.err.Error() }
func (e *hinted) Unwrap() error { return e.err }
func (e *hinted) Hint() string  { return e.hint }

// withHint returns err with a hint line that says what to do about it.
func withHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &hinted{err: err, hint: hint}
}

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	var ue *usageError
	var pe *problemsError
	var ec interface{ ExitCode() int }
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ec):
		return ec.ExitCode()
	case errors.As(err, &ue):
		return ExitUsage
	case errors.As(err, &pe):
		return ExitProblems
	}
	return ExitFailure
}

// hintOf returns the first hint in err's chain.
func hintOf(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return h.Hint()
	}
	// The apps' message stays exact; where it is terse ("not valid JSON")
	// the problem's detail says where.
	var ie *manifest.InvalidError
	if errors.As(err, &ie) && len(ie.Problems) > 0 {
		hint := "spirit extension validate PATH lists every problem"
		if h := ie.Problems[0].Hint; h != "" {
			hint = h + "; " + hint
		}
		if d := ie.Problems[0].Detail; d != "" {
			hint = d + "; " + hint
		}
		return hint
	}
	return ""
}

// printError writes err as `Error: …` and a hint line, or as one JSON object
// when --json is set.
func printError(w io.Writer, err error, asJSON bool) {
	code := exitCode(err)
	msg := err.Error()
	hint := hintOf(err)
	if msg == "" && hint == "" {
		return // what went wrong was already printed
	}
	if code == ExitUsage && hint == "" {
		hint = "run with --help for usage"
	}
	location := ""
	var lo interface{ Location() string }
	if errors.As(err, &lo) {
		location = lo.Location()
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(struct {
			Error    string `json:"error"`
			Location string `json:"location,omitempty"`
			Hint     string `json:"hint,omitempty"`
			ExitCode int    `json:"exitCode"`
		}{msg, location, hint, code})
		return
	}
	if err == errInterrupted {
		fmt.Fprintln(w, msg) // not an error of spirit's: the user stopped it
		return
	}
	if msg != "" {
		termtext.Fprintf(w, "Error: %s\n", termtext.Multiline(strings.TrimRight(msg, "\n")))
	}
	if location != "" {
		termtext.Fprintf(w, "%s\n", location)
	}
	if hint != "" {
		termtext.Fprintf(w, "Hint: %s\n", hint)
	}
}
