package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/internal/termtext"
)

// toolFailedError is a tool's own failure, as the command line reports it.
// Its message is the tool's, byte for byte as the apps give it to the
// model; which tool failed is said in the hint.
type toolFailedError struct{ te *exthost.ToolError }

func (e *toolFailedError) Error() string { return e.te.Message }

// Hint names the tool that failed and where its output is.
func (e *toolFailedError) Hint() string {
	return fmt.Sprintf("the tool %s of %s failed on its own; its output: spirit extension logs %s", e.te.Tool, e.te.ExtensionID, e.te.ExtensionID)
}

func (e *toolFailedError) Unwrap() error { return e.te }

// ExitCode is ExitTool.
func (e *toolFailedError) ExitCode() int { return ExitTool }

// loadFailedError is an extension that failed to load or activate, with
// the place in its package when Node told it. Its message is the apps';
// the place is a line of its own (Location), never part of the message.
type loadFailedError struct{ xe *exthost.ExtensionError }

func (e *loadFailedError) Error() string { return e.xe.Message }

// Location is where in the package it failed ("index.js:3:9: Error: boom"),
// "" when Node did not tell.
func (e *loadFailedError) Location() string { return e.xe.Location }

func (e *loadFailedError) Unwrap() error { return e.xe }

// Hint points at the extension's full output.
func (e *loadFailedError) Hint() string {
	return fmt.Sprintf("full output in %s — spirit extension logs %s", e.xe.LogFile, e.xe.ExtensionID)
}

// authorError gives the errors an extension author acts on their form:
// a tool's own failure exits 4, a load or activation failure names its
// place and the log. Others are returned as they are.
func authorError(err error) error {
	var te *exthost.ToolError
	var xe *exthost.ExtensionError
	switch {
	case errors.As(err, &te):
		return &toolFailedError{te}
	case errors.As(err, &xe) && xe.LogFile != "":
		return &loadFailedError{xe}
	}
	return err
}

// warnLocation follows a warning about err with the place and the log,
// when err is a load or activation failure that has them.
func warnLocation(f *Factory, err error) {
	var le *loadFailedError
	if !errors.As(authorError(err), &le) {
		return
	}
	if le.xe.Location != "" {
		termtext.Fprintf(f.IO.ErrOut, "  %s\n", le.xe.Location)
	}
	termtext.Fprintf(f.IO.ErrOut, "  Hint: %s\n", le.Hint())
}

// LogsOptions are the inputs of `spirit extension logs`.
type LogsOptions struct {
	f      *Factory
	ID     string
	Follow bool
	Lines  int
	// poll is how often -f looks for new output; zero means 250ms.
	poll time.Duration
}

func newCmdLogs(f *Factory, runF func(*LogsOptions) error) *cobra.Command {
	opts := &LogsOptions{f: f}
	cmd := &cobra.Command{
		Use:   "logs ID",
		Short: "Print an extension's log",
		Long: `Print the log of extension ID: what it wrote with ctx.log, its standard output
and error, and spirit's start lines. It works for installed extensions and for
--dev packages (the log is kept by id). With -f, wait for more output and print
it as it comes, until interrupted.`,
		Example: `  spirit extension logs my-ext
  spirit extension logs @acme/weather -n 50 -f`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = strings.TrimSpace(args[0])
			if opts.Lines < 0 {
				return usageErrorf("-n must not be negative")
			}
			if runF != nil {
				return runF(opts)
			}
			return runLogs(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Follow, "follow", "f", false, "keep printing new output until interrupted")
	cmd.Flags().IntVarP(&opts.Lines, "lines", "n", 0, "print only the last `N` lines (0: all)")
	return cmd
}

func runLogs(ctx context.Context, opts *LogsOptions) error {
	f := opts.f
	p, err := f.Paths()
	if err != nil {
		return err
	}
	if opts.ID == "" {
		return usageErrorf("the extension id must not be empty")
	}
	name := p.LogFile(opts.ID)
	fh, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) && !opts.Follow {
		return withHint(fmt.Errorf("extension %s has no log yet (%s)", opts.ID, name),
			"an extension's log is written when it first runs: spirit extension call, prompt or emit")
	}
	var off int64
	if err == nil {
		if !opts.Follow {
			defer f.startPager()()
		}
		off, err = printTail(f, fh, opts.Lines)
		fh.Close()
		if err != nil {
			return err
		}
	}
	if !opts.Follow {
		return nil
	}
	return follow(ctx, f, name, off, opts.poll)
}

// maxTailRead is how much of the end of a log -n reads.
const maxTailRead = 4 << 20

// printTail prints the last n lines of fh (all when n is 0) through the
// sanitiser and returns the offset it read to.
func printTail(f *Factory, fh *os.File, n int) (int64, error) {
	fi, err := fh.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	start := int64(0)
	if n > 0 && size > maxTailRead {
		start = size - maxTailRead
	}
	if _, err := fh.Seek(start, io.SeekStart); err != nil {
		return 0, err
	}
	data, err := io.ReadAll(io.LimitReader(fh, size-start))
	if err != nil {
		return 0, err
	}
	if n > 0 {
		lines := bytes.SplitAfter(data, []byte("\n"))
		if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1]
		}
		if len(lines) > n {
			lines = lines[len(lines)-n:]
		}
		data = bytes.Join(lines, nil)
	}
	return size, writeLog(f, data)
}

func writeLog(f *Factory, data []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), len(data)+1)
	for sc.Scan() {
		if _, err := termtext.Fprintln(f.IO.Out, sc.Text()); err != nil {
			return err
		}
	}
	return sc.Err()
}

// follow prints what is appended to name from off on, until ctx ends. A
// log that was rotated or truncated is read again from the start.
func follow(ctx context.Context, f *Factory, name string, off int64, poll time.Duration) error {
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	var partial []byte
	prev, _ := os.Stat(name)
	for {
		if fi, err := os.Stat(name); err == nil {
			// Another file (rotated) or a shorter one (truncated): from the start.
			if (prev != nil && !os.SameFile(prev, fi)) || fi.Size() < off {
				off = 0
			}
			prev = fi
			if fi.Size() > off {
				data, err := readRange(name, off, fi.Size()-off)
				if err != nil {
					return err
				}
				off += int64(len(data))
				data = append(partial, data...)
				cut := bytes.LastIndexByte(data, '\n') + 1
				partial = append([]byte(nil), data[cut:]...)
				if err := writeLog(f, data[:cut]); err != nil {
					return err
				}
			}
		}
		select {
		case <-ctx.Done():
			if len(partial) > 0 {
				_ = writeLog(f, partial)
			}
			return nil
		case <-t.C:
		}
	}
}

// readRange reads at most n bytes of name from off on.
func readRange(name string, off, n int64) ([]byte, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if _, err := fh.Seek(off, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(fh, n))
}
