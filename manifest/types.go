package manifest

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/spiritagents/spirit/problem"
)

// Severity of a Problem (the type shared with registry and catalog).
type Severity = problem.Severity

// The severities.
const (
	SeverityError   = problem.SeverityError
	SeverityWarning = problem.SeverityWarning
)

// Problem is one thing wrong with a manifest: where (Pointer, a JSON
// pointer into package.json, "" for the whole document, with InDocument
// set), what (the reference's message text where the reference has one),
// and how bad. A *Problem is an error.
type Problem = problem.Problem

// Report is the result of validating one manifest: every problem found, and
// the parsed manifest when the document could be read at all.
type Report struct {
	// Manifest is nil when package.json is not a JSON object. It is filled
	// from whatever parsed even when there are problems.
	Manifest *Manifest `json:"-"`
	Problems []Problem `json:"problems"`
}

// Valid reports whether no problem is an error.
func (r *Report) Valid() bool {
	for _, p := range r.Problems {
		if p.Severity == SeverityError {
			return false
		}
	}
	return true
}

// Errors returns the problems of error severity.
func (r *Report) Errors() []Problem {
	var out []Problem
	for _, p := range r.Problems {
		if p.Severity == SeverityError {
			out = append(out, p)
		}
	}
	return out
}

// Err returns nil when the report is valid, else an *InvalidError.
func (r *Report) Err() error {
	if errs := r.Errors(); len(errs) > 0 {
		return &InvalidError{Problems: errs}
	}
	return nil
}

// InvalidError is returned by Report.Err. Its message is the first
// problem's (the one the reference would have stopped at).
type InvalidError struct{ Problems []Problem }

func (e *InvalidError) Error() string {
	msg := e.Problems[0].Message
	if n := len(e.Problems) - 1; n == 1 {
		msg += " (and 1 more problem)"
	} else if n > 1 {
		msg += fmt.Sprintf(" (and %d more problems)", n)
	}
	return msg
}

// Unwrap returns the problems, so errors.As finds a *Problem.
func (e *InvalidError) Unwrap() []error {
	out := make([]error, len(e.Problems))
	for i := range e.Problems {
		out[i] = &e.Problems[i]
	}
	return out
}

// The activation events the reference accepts.
var ActivationEvents = []string{"onStartup", "onExtensionInstalled", "onSessionOpened", "onSessionReset",
	"onUserMessage", "onToolCall", "onToolResult", "onApprovalResolved"}

// The capabilities the reference accepts.
var Capabilities = []string{"tool-definitions", "tool-execution", "system-prompt", "approval-flow",
	"questions-flow", "settings", "secret-storage", "structured-results", "desktop-ui", "cli-ui"}

// Manifest is a parsed package.json with its spiritExtension block, in the
// shape the reference produces (spec §2.4): strings trimmed, lists
// de-duplicated, empty blocks absent.
type Manifest struct {
	SchemaVersion int    `json:"schemaVersion"`
	ID            string `json:"id"`   // package.json name, trimmed
	Name          string `json:"name"` // spiritExtension.displayName
	Version       string `json:"version"`
	Icon          string `json:"icon,omitempty"`
	Description   string `json:"description,omitempty"`
	Author        string `json:"author,omitempty"`
	Homepage      string `json:"homepage,omitempty"`
	// Main is kept as written (not normalised), like the reference.
	Main                  string       `json:"main,omitempty"`
	SupportedHosts        []string     `json:"supportedHosts"`
	ActivationEvents      []string     `json:"activationEvents,omitempty"`
	RequestedCapabilities []string     `json:"requestedCapabilities,omitempty"`
	Contributes           *Contributes `json:"contributes,omitempty"`
	SettingsSchema        []Setting    `json:"settingsSchema,omitempty"`
	SecretSlots           []SecretSlot `json:"secretSlots,omitempty"`
	// Type is package.json "type" ("module" or "commonjs"); it decides how Node loads main.
	Type string `json:"-"`
}

// HasCapability reports whether c is requested.
func (m *Manifest) HasCapability(c string) bool { return slices.Contains(m.RequestedCapabilities, c) }

// SupportsHost reports whether host ("cli" or "desktop") is supported.
func (m *Manifest) SupportsHost(host string) bool { return slices.Contains(m.SupportedHosts, host) }

// ListensTo reports whether event is one of the activation events.
func (m *Manifest) ListensTo(event string) bool { return slices.Contains(m.ActivationEvents, event) }

// Tools returns the contributed tools (nil when there are none).
func (m *Manifest) Tools() []Tool {
	if m.Contributes == nil {
		return nil
	}
	return m.Contributes.Tools
}

// Setting returns the setting definition of key.
func (m *Manifest) Setting(key string) (Setting, bool) {
	for _, s := range m.SettingsSchema {
		if s.Key == key {
			return s, true
		}
	}
	return Setting{}, false
}

// SecretSlot returns the slot of key.
func (m *Manifest) SecretSlot(key string) (SecretSlot, bool) {
	for _, s := range m.SecretSlots {
		if s.Key == key {
			return s, true
		}
	}
	return SecretSlot{}, false
}

// Contributes are the extension's contributions.
type Contributes struct {
	Tools   []Tool   `json:"tools,omitempty"`
	Desktop *Desktop `json:"desktop,omitempty"`
	CLI     *CLI     `json:"cli,omitempty"`
}

// Tool is one contributed tool.
type Tool struct {
	Name          string          `json:"name"`
	Description   string          `json:"description"`
	InputSchema   json.RawMessage `json:"inputSchema"`
	OutputSchema  json.RawMessage `json:"outputSchema,omitempty"`
	ApprovalMode  string          `json:"approvalMode,omitempty"`  // allowed | need-approval | need-questions
	ExecutionMode string          `json:"executionMode,omitempty"` // foreground | background
}

// Desktop is the desktop UI contribution.
type Desktop struct {
	CSS          []CSS         `json:"css,omitempty"`
	SettingsPage *SettingsPage `json:"settingsPage,omitempty"`
}

// CSS is one stylesheet.
type CSS struct {
	Path  string `json:"path"`
	Media string `json:"media,omitempty"`
}

// SettingsPage adds a desktop settings entry.
type SettingsPage struct {
	Title string `json:"title,omitempty"`
}

// CLI is the CLI UI contribution: hooks read from the hooks file.
type CLI struct {
	HooksPath string `json:"hooksPath"`
	Hooks     []Hook `json:"hooks"`
}

// Hook is one CLI UI hook.
type Hook struct {
	Slot    string      `json:"slot"`
	Variant string      `json:"variant,omitempty"`
	Tokens  *HookTokens `json:"tokens,omitempty"`
	Prefix  string      `json:"prefix,omitempty"`
	Suffix  string      `json:"suffix,omitempty"`
}

// HookTokens are a hook's colour tokens.
type HookTokens struct {
	Foreground string `json:"foreground,omitempty"`
	Border     string `json:"border,omitempty"`
	Accent     string `json:"accent,omitempty"`
}

// Setting is one entry of settingsSchema.
type Setting struct {
	Key         string `json:"key"`
	Type        string `json:"type"` // string | boolean | number | select
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Placeholder string `json:"placeholder,omitempty"`
	Required    bool   `json:"required,omitempty"`
	// DefaultValue is nil when absent; else a string, bool or float64 matching Type.
	DefaultValue any      `json:"defaultValue,omitempty"`
	Options      []Option `json:"options,omitempty"`
}

// Option is one choice of a select setting.
type Option struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// SecretSlot is one declared secret.
type SecretSlot struct {
	Key         string `json:"key"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

func trim(s string) string { return TrimJS(s) }
