package iostreams

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// DefaultPager is the pager used when neither SPIRIT_PAGER nor PAGER is
// set, as gh does: -F quits when the text fits on one screen, -R keeps
// colours, -X leaves the text on the screen after quitting.
const DefaultPager = "less -FRX"

// PagerCommand returns the pager named by SPIRIT_PAGER, else PAGER, else
// DefaultPager (an empty value counts as unset). On a dumb terminal
// (TERM=dumb) only SPIRIT_PAGER counts: less stops there at "terminal is
// not fully functional" and waits for RETURN, so the text is printed as it
// is. StartPager reads "cat" and "" as no pager.
func PagerCommand(getenv func(string) string) string {
	if v := strings.TrimSpace(getenv("SPIRIT_PAGER")); v != "" {
		return v
	}
	if getenv("TERM") == "dumb" {
		return ""
	}
	if v := strings.TrimSpace(getenv("PAGER")); v != "" {
		return v
	}
	return DefaultPager
}

type pagerProcess struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out io.Writer // the standard output before the pager
}

// StartPager sends standard output through the pager command (split on
// spaces) when standard output is a terminal (of the process, or of a
// test with SetPagerEnabled). Nothing happens on a pipe,
// for "cat" or "", or when the pager cannot start (the text is printed
// as it is). StopPager must follow.
func (s *IOStreams) StartPager(command string) error {
	if !s.outTTY || s.pager != nil || (s.stdout == nil && !s.pagerOn) {
		return nil
	}
	argv := strings.Fields(command)
	if len(argv) == 0 || argv[0] == "cat" {
		return nil
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = unwrap(s.Out), unwrap(s.ErrOut)
	cmd.Env = os.Environ()
	if os.Getenv("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	if os.Getenv("LV") == "" {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("pager %q: %w", command, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pager %q: %w", command, err)
	}
	s.pager = &pagerProcess{cmd: cmd, in: in, out: s.Out}
	s.Out = &pagerWriter{w: in}
	return nil
}

// SetPagerEnabled lets StartPager run a pager on streams that are not the
// process's own (tests); the streams of Test never start one otherwise,
// so a test marked as a terminal does not depend on less being installed.
func (s *IOStreams) SetPagerEnabled(on bool) { s.pagerOn = on }

// StopPager ends the pager's input and waits for the user to quit it,
// then restores standard output. It is a no-op without a pager.
func (s *IOStreams) StopPager() {
	if s.pager == nil {
		return
	}
	_ = s.pager.in.Close()
	_ = s.pager.cmd.Wait()
	s.Out = s.pager.out
	s.pager = nil
}

// pagerWriter drops what is written after the user quit the pager, so a
// long listing stops quietly instead of failing with "broken pipe".
type pagerWriter struct {
	w      io.Writer
	closed bool
}

func (p *pagerWriter) Write(b []byte) (int, error) {
	if p.closed {
		return len(b), nil
	}
	n, err := p.w.Write(b)
	if err != nil && (errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)) {
		p.closed = true
		return len(b), nil
	}
	return n, err
}

// unwrap returns the writer under a lineEnder, so a pager writes straight
// to the terminal's file.
func unwrap(w io.Writer) io.Writer {
	if l, ok := w.(*lineEnder); ok {
		return l.w
	}
	return w
}
