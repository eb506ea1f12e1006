package iostreams

import (
	"os"

	"golang.org/x/term"
)

// ColorFromEnv decides whether output is coloured, as gh and the
// informal CLICOLOR/NO_COLOR conventions say: NO_COLOR set to anything
// turns colour off; otherwise CLICOLOR_FORCE set to anything but "0"
// turns it on, even on a pipe; otherwise colour follows whether standard
// output is a terminal.
func ColorFromEnv(getenv func(string) string, stdoutTTY bool) bool {
	if getenv("NO_COLOR") != "" {
		return false
	}
	if v := getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		return true
	}
	return stdoutTTY
}

// ColorEnabled reports whether human output may use colour.
func (s *IOStreams) ColorEnabled() bool { return s.color }

// SetColorEnabled turns colour on or off (for tests and for the factory,
// which reads the environment).
func (s *IOStreams) SetColorEnabled(on bool) { s.color = on }

// TerminalWidth is the width human tables are cut to: the width set by
// SetTerminalWidth, else that of the standard output terminal, else 80.
func (s *IOStreams) TerminalWidth() int {
	if s.width > 0 {
		return s.width
	}
	for _, f := range []*os.File{s.stdout, s.stderr} {
		if f == nil || !isTerminal(f) {
			continue
		}
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 80
}

// SetTerminalWidth fixes the width of tables (for tests, and for the
// factory when COLUMNS is set).
func (s *IOStreams) SetTerminalWidth(w int) { s.width = w }

// ColorScheme returns the colours of human output: each method returns
// its text unchanged when colour is off. The text must already be
// sanitised; only spirit adds escape sequences.
func (s *IOStreams) ColorScheme() *ColorScheme { return &ColorScheme{on: s.color} }

// ColorScheme wraps text in SGR sequences when colour is on.
type ColorScheme struct{ on bool }

func (c *ColorScheme) wrap(code, s string) string {
	if !c.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Bold is for headers and names.
func (c *ColorScheme) Bold(s string) string { return c.wrap("1", s) }

// Red is for failures (a broken install, a blocked extension).
func (c *ColorScheme) Red(s string) string { return c.wrap("31", s) }

// Yellow is for warnings (revoked, unverified).
func (c *ColorScheme) Yellow(s string) string { return c.wrap("33", s) }

// Green is for success (verified, ok).
func (c *ColorScheme) Green(s string) string { return c.wrap("32", s) }

// Gray is for what matters less (disabled, unknown values).
func (c *ColorScheme) Gray(s string) string { return c.wrap("90", s) }
