package iostreams

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/spiritagents/spirit/internal/termtext"
)

// ErrNotTerminal is returned by Password when standard input is not a
// terminal, so a value cannot be read without echo.
var ErrNotTerminal = errors.New("standard input is not a terminal")

// Prompter asks the user questions on standard error and reads the answers
// from standard input. Every question of a run goes through the one
// Prompter of its streams, which holds the one buffered reader of standard
// input, so an answer typed ahead is not lost between two questions.
//
// Questions are formatted with termtext.Sprintf: text from outside (an
// extension id, a tool's prompt) cannot rewrite the question on screen.
type Prompter struct {
	s *IOStreams
	r *bufio.Reader
}

// Prompter returns the streams' prompter.
func (s *IOStreams) Prompter() *Prompter {
	if s.prompter == nil {
		s.prompter = &Prompter{s: s, r: bufio.NewReader(s.In)}
	}
	return s.prompter
}

// Confirm asks a yes/no question, formatted as by termtext.Sprintf and
// followed by " [y/N] ". It returns true only for "y" or "yes" (any case);
// false without asking when the user cannot be asked.
func (p *Prompter) Confirm(format string, args ...any) (bool, error) {
	if !p.s.CanPrompt() {
		return false, nil
	}
	line, err := p.Input(format+" [y/N] ", args...)
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", err
}

// Input asks for one line, formatted as by termtext.Sprintf, and returns
// the answer with its line end. It fails only when nothing could be read.
func (p *Prompter) Input(format string, args ...any) (string, error) {
	termtext.Fprintf(p.s.ErrOut, format, args...)
	line, err := p.r.ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("reading the answer: %w", err)
	}
	return line, nil
}

// Password asks for a value, formatted as by termtext.Sprintf, and reads
// it from the terminal without echo.
func (p *Prompter) Password(format string, args ...any) (string, error) {
	in, ok := p.s.In.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return "", fmt.Errorf("cannot read a masked value: %w", ErrNotTerminal)
	}
	termtext.Fprintf(p.s.ErrOut, format, args...)
	b, err := term.ReadPassword(int(in.Fd()))
	io.WriteString(p.s.ErrOut, "\n")
	return string(b), err
}
