package iostreams

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// fixedClock returns a clock that moves by step at every reading.
func fixedClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

// sharedTerminal returns streams whose stdout and stderr are one buffer
// marked as a terminal, as on a real terminal where both show.
func sharedTerminal() (*IOStreams, *bytes.Buffer) {
	ios, _, screen := TestTerminal()
	ios.SetTerminalWidth(200)
	return ios, screen
}

// The bar shows bytes, rate and time left.
func TestProgressRateAndETA(t *testing.T) {
	ios, screen := sharedTerminal()
	p := ios.Progress()
	p.now = fixedClock(time.Second)
	p.Start("big.tgz", 10<<20)
	p.Add(2 << 20)
	got := screen.String()
	if !strings.Contains(got, "Downloading big.tgz [####                ]  20% 2.0/10.0 MiB 2.0 MiB/s 4s left") {
		t.Fatalf("got %q", got)
	}
	p.Add(8 << 20)
	if !strings.HasSuffix(screen.String(), "100% 10.0/10.0 MiB 5.0 MiB/s\n") {
		t.Fatalf("finished bar not ended: %q", screen.String())
	}
}

// Whatever is printed next starts on its own line: a bar cut short (an
// unpack that failed, a download between two tries) is ended by the next
// write to standard output or error, and a finished one ends itself.
func TestProgressEndedBeforeOutput(t *testing.T) {
	for _, finish := range []bool{false, true} {
		t.Run(fmt.Sprintf("finished=%v", finish), func(t *testing.T) {
			ios, screen := sharedTerminal()
			p := ios.Progress()
			p.now = fixedClock(time.Second)
			done := int64(5 << 20)
			if finish {
				done = 8 << 20
			}
			p.Extracting(done, 8<<20)
			fmt.Fprintln(ios.Out, "Installed extension: Big")
			got := screen.String()
			if !strings.HasPrefix(got, "\r\x1b[KUnpacking [") || !strings.HasSuffix(got, "\nInstalled extension: Big\n") {
				t.Fatalf("result not on its own line: %q", got)
			}
			if strings.Count(got, "\n") != 2 {
				t.Fatalf("want exactly the bar's line and the result: %q", got)
			}
			// Nothing left to end: Stop adds no empty line.
			p.Stop()
			if screen.String() != got {
				t.Fatalf("Stop after the result wrote %q", strings.TrimPrefix(screen.String(), got))
			}
		})
	}
}

// Off a terminal nothing is drawn; with -v one line per stage.
func TestProgressOffTerminal(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		ios, _, _, errOut := Test()
		p := ios.Progress()
		p.SetVerbose(verbose)
		p.Start("@acme/x@1.0.0", 6<<20)
		p.Add(6 << 20)
		p.Done(nil)
		p.Extracting(1<<20, 6<<20)
		p.Extracting(6<<20, 6<<20)
		want := ""
		if verbose {
			want = "Downloading @acme/x@1.0.0 (6.0 MiB)…\nUnpacking (6.0 MiB)…\n"
		}
		if got := errOut.String(); got != want {
			t.Errorf("verbose %v: got %q, want %q", verbose, got, want)
		}
	}
}

func TestFormatETA(t *testing.T) {
	tests := []struct {
		name string
		d    time.Duration
		want string
	}{
		{name: "seconds", d: 42 * time.Second, want: "42s"},
		{name: "minutes", d: 185 * time.Second, want: "3m05s"},
		{name: "hours", d: 62 * time.Minute, want: "1h02m"},
	}
	for _, tt := range tests {
		if got := formatETA(tt.d); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// Writers on other goroutines (registry builds fetch in parallel) never
// print into the middle of a bar.
func TestProgressConcurrentWrites(t *testing.T) {
	ios, screen := sharedTerminal()
	p := ios.Progress()
	p.now = fixedClock(time.Second)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 50 {
				p.Fetched(fmt.Sprintf("pkg-%d-%d", i, j), j, 50)
				fmt.Fprintf(ios.ErrOut, "line %d %d\n", i, j)
			}
		})
	}
	wg.Wait()
	p.Stop()
	for _, line := range strings.Split(screen.String(), "\n") {
		if i := strings.Index(line, "line "); i > 0 {
			t.Fatalf("text printed after a bar: %q", line)
		}
	}
}

// A download unpacked as it streams reports both; its bar stays on one
// line, ended once, at the end of the download.
func TestProgressStreamedUnpackOneLine(t *testing.T) {
	ios, screen := sharedTerminal()
	p := ios.Progress()
	p.now = fixedClock(time.Second)
	const total = 8 << 20
	p.Start("big@1.0.0", total)
	for done := int64(0); done < total; done += 1 << 20 {
		p.Add(1 << 20)
		p.Extracting(done, total)
	}
	p.Done(nil)
	p.Extracting(total, total)
	got := screen.String()
	if strings.Count(got, "\n") != 1 || strings.Contains(got, "Unpacking") || !strings.HasSuffix(got, "\n") {
		t.Fatalf("want one line, ended: %q", got)
	}
}

// On a narrow terminal the line never reaches the last column: time
// left, rate and bar give way before the percentage.
func TestProgressNarrowTerminal(t *testing.T) {
	for _, tt := range []struct {
		width int
		want  string
	}{
		{width: 100, want: "Downloading @acme/extension@1.0.0 [####                ]  20% 2.0/10.0 MiB 2.0 MiB/s 4s left"},
		{width: 80, want: "Downloading @acme/e… [####                ]  20% 2.0/10.0 MiB 2.0 MiB/s 4s left"},
		{width: 60, want: "Downloading @acme… [####                ]  20% 2.0/10.0 MiB"},
		{width: 40, want: "Downloading @acme/ex…  20% 2.0/10.0 MiB"},
		{width: 24, want: "Downloading…  20% 2.0/…"},
	} {
		ios, screen := sharedTerminal()
		ios.SetTerminalWidth(tt.width)
		p := ios.Progress()
		p.now = fixedClock(time.Second)
		p.Start("@acme/extension@1.0.0", 10<<20)
		p.Add(2 << 20)
		line := strings.TrimPrefix(screen.String(), "\r\x1b[K")
		if n := len([]rune(line)); n >= tt.width || line != tt.want {
			t.Errorf("width %d: %q (%d columns), want %q", tt.width, line, n, tt.want)
		}
	}
}
