package exthost

import (
	"errors"
	"fmt"
	"time"
)

// ErrNodeNotFound means no Node.js executable was found.
var ErrNodeNotFound = errors.New("Node.js was not found: extensions need node 18 or later on PATH, or SPIRIT_NODE set to its path")

// ErrNotFound means no installed extension has the id (the reference's
// "Extension not found: <id>").
var ErrNotFound = errors.New("Extension not found")

// ErrUnknownTool means no exposed tool has the name.
var ErrUnknownTool = errors.New("Unknown tool")

// ErrClosed is returned by a Host after Close.
var ErrClosed = errors.New("the extension host is closed")

// NotFoundError names the id that is not installed. It matches ErrNotFound.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string { return "Extension not found: " + e.ID }

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// UnknownToolError names the tool that does not resolve. It matches ErrUnknownTool.
type UnknownToolError struct{ Name string }

func (e *UnknownToolError) Error() string { return "Unknown tool: " + e.Name }

// Is makes errors.Is(err, ErrUnknownTool) true.
func (e *UnknownToolError) Is(target error) bool { return target == ErrUnknownTool }

// NodeVersionError says the Node.js found is older than 18.
type NodeVersionError struct {
	Path, Version string
}

func (e *NodeVersionError) Error() string {
	return fmt.Sprintf("Node.js %s at %s is too old: extensions need node 18 or later (set SPIRIT_NODE to a newer one)", e.Version, e.Path)
}

// ArgumentsError says tool arguments do not match the tool's inputSchema.
// Pointer is the JSON pointer of the failing value ("" for the whole object).
type ArgumentsError struct {
	Tool    string
	Pointer string
	Message string
}

func (e *ArgumentsError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("invalid arguments for %s at %s: %s", e.Tool, p, e.Message)
}

// ToolError is a failure of the tool itself: its handler threw, its result
// has no JSON form, or the result does not match outputSchema. An agent
// reports it to the model as a failed tool call.
type ToolError struct {
	ExtensionID, Tool string
	Message           string
}

func (e *ToolError) Error() string { return e.Message }

// ExtensionError is a failure of an extension outside a tool handler: it did
// not load, activate, or its event, prompt or dispose hook threw. Message is
// the reference's text where it has one.
type ExtensionError struct {
	ExtensionID string
	Message     string
	// Location is where in the package a load or activation failed, from
	// Node's error: "index.js:12:5: SyntaxError: Unexpected token ';'"; ""
	// when Node does not tell.
	Location string
	// LogFile is the extension's log, which holds the full output.
	LogFile string
}

func (e *ExtensionError) Error() string { return e.Message }

// TimeoutError says an extension did not answer in time. The process is
// stopped; the next use starts a new one.
type TimeoutError struct {
	ExtensionID string
	Op          string // activate, call, event, prompt, dispose
	After       time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("extension %s did not finish %s within %s", e.ExtensionID, e.Op, e.After)
}

// ExitError says an extension's process ended while it was in use. The next
// use starts a new one.
type ExitError struct {
	ExtensionID string
	// State is how it ended ("exit status 3", "signal: killed").
	State   string
	LogFile string
}

func (e *ExitError) Error() string {
	s := fmt.Sprintf("extension %s exited unexpectedly", e.ExtensionID)
	if e.State != "" {
		s += " (" + e.State + ")"
	}
	if e.LogFile != "" {
		s += "; its output is in " + e.LogFile
	}
	return s
}

// ApprovalError says a tool needs the user's approval (need-approval) or an
// execution note (need-questions) before it may run. Prompt is the
// reference's confirmation text, or the question title.
type ApprovalError struct {
	Mode   string // need-approval | need-questions
	Tool   Tool
	Prompt string
}

func (e *ApprovalError) Error() string {
	if e.Mode == ApprovalNeedQuestions {
		return fmt.Sprintf("tool %s needs an execution note before it runs", e.Tool.Name)
	}
	return fmt.Sprintf("tool %s needs approval before it runs", e.Tool.Name)
}

// ErrMessageTooLarge means a protocol message is larger than the 64 MiB a
// line may hold, in either direction.
var ErrMessageTooLarge = errors.New("protocol message larger than 64 MiB")

// ProtocolError says an extension broke the runner protocol (it sent a
// message over the size cap). The process is stopped; the next use starts
// a new one.
type ProtocolError struct {
	ExtensionID string
	Err         error
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("extension %s broke the protocol (%v); it was stopped and starts again on its next use", e.ExtensionID, e.Err)
}

// Unwrap returns the cause, so errors.Is(err, ErrMessageTooLarge) holds.
func (e *ProtocolError) Unwrap() error { return e.Err }
