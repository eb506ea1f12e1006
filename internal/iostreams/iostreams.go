// Package iostreams holds the standard streams of a command and knows
// whether they are terminals, so commands decide once how to print. It
// also holds the run's one Prompter and one Progress line.
package iostreams

import (
	"bytes"
	"io"
	"os"
	"sync/atomic"

	"golang.org/x/term"
)

// IOStreams are the streams a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	inTTY, outTTY, errTTY bool
	color                 bool
	width                 int

	pager   *pagerProcess
	pagerOn bool

	prompter *Prompter
	progress atomic.Pointer[Progress]
	// stdout and stderr are the process's own, for the terminal width.
	stdout, stderr *os.File
}

// System returns the process's own streams.
func System() *IOStreams {
	s := &IOStreams{
		In: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		inTTY:  isTerminal(os.Stdin),
		outTTY: isTerminal(os.Stdout),
		errTTY: isTerminal(os.Stderr),
	}
	s.color = ColorFromEnv(os.Getenv, s.outTTY)
	s.setOutputs(os.Stdout, os.Stderr)
	return s
}

// setOutputs sets Out and ErrOut to out and errOut, each behind a
// lineEnder, so whatever is printed starts on a line of its own.
func (s *IOStreams) setOutputs(out, errOut io.Writer) {
	s.Out, s.ErrOut = &lineEnder{w: out, s: s}, &lineEnder{w: errOut, s: s}
}

// errWriter is where the progress line is drawn: standard error without
// the lineEnder (or ErrOut as a test set it).
func (s *IOStreams) errWriter() io.Writer { return unwrap(s.ErrOut) }

// progressIfAny returns the progress line if one was made.
func (s *IOStreams) progressIfAny() *Progress { return s.progress.Load() }

// Test returns streams backed by buffers, none of them a terminal.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	s := &IOStreams{In: in}
	s.setOutputs(out, errOut)
	return s, in, out, errOut
}

// TestTerminal returns streams of a terminal for tests: standard output
// and error both write to screen, in the order they are written, and all
// three streams are marked as terminals (width 80, no colour).
func TestTerminal() (ios *IOStreams, in, screen *bytes.Buffer) {
	ios, in, _, _ = Test()
	screen = &bytes.Buffer{}
	ios.setOutputs(screen, screen)
	ios.SetTTY(true)
	return ios, in, screen
}

// SetTTY marks all three streams as terminals or not (for tests).
func (s *IOStreams) SetTTY(tty bool) { s.inTTY, s.outTTY, s.errTTY = tty, tty, tty }

// IsStdinTTY reports whether standard input is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.inTTY }

// IsStdoutTTY reports whether standard output is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.outTTY }

// IsStderrTTY reports whether standard error is a terminal: progress and
// decorations are drawn only then.
func (s *IOStreams) IsStderrTTY() bool { return s.errTTY }

// CanPrompt reports whether the user can be asked a question.
func (s *IOStreams) CanPrompt() bool { return s.inTTY && s.errTTY }

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
