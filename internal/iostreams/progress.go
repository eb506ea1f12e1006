package iostreams

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/spiritagents/spirit/internal/termtext"
)

// Progress is the one progress line of a run, on standard error: every
// download (npm, marketplace, URL) and every unpacking reports through it.
// On a terminal it draws a bar with the bytes done, the rate and the time
// left, at most ten times a second and always at the end of a task. Its
// line is always ended before anything else is printed: a finished task
// ends it, and the streams of System and Test end it before any other
// write to standard output or error. Off a terminal it draws nothing; with
// SetVerbose it says one line per task. It is safe for concurrent use and
// its methods are no-ops on a nil *Progress. Its methods serve the
// progress interfaces of the domain packages (fetch.Progress,
// install.Progress, registry fetches). Labels come from outside and are
// escaped with termtext.
type Progress struct {
	s       *IOStreams
	mu      sync.Mutex
	verbose bool
	task    string
	done    int64
	total   int64
	started time.Time
	last    time.Time
	drawn   bool
	// downloading is set while a download's bytes come in (Add counts
	// only then).
	downloading bool
	// streamed is the size of the last download that was unpacked as it
	// came in: its one bar shows both, so its unpacking draws no bar of
	// its own.
	streamed int64
	// now is the clock (tests fix it).
	now func() time.Time
}

// Progress returns the streams' progress line.
func (s *IOStreams) Progress() *Progress {
	if p := s.progress.Load(); p != nil {
		return p
	}
	s.progress.CompareAndSwap(nil, &Progress{s: s, now: time.Now})
	return s.progress.Load()
}

// SetVerbose makes the progress say one line per task off a terminal
// (spirit -v).
func (p *Progress) SetVerbose(on bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.verbose = on
}

// unpackMin is the size under which unpacking is too quick to show.
const unpackMin = 4 << 20

// Start begins a download of total bytes (-1 when unknown) named label.
func (p *Progress) Start(label string, total int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLine()
	p.begin("Downloading "+termtext.Line(label), total)
	p.downloading, p.streamed = true, 0
}

// begin starts task, and says so off a terminal when verbose.
func (p *Progress) begin(task string, total int64) {
	p.task, p.done, p.total, p.started, p.last = task, 0, total, p.now(), time.Time{}
	p.downloading = false
	if !p.s.IsStderrTTY() && p.verbose {
		size := ""
		if total > 0 {
			size = fmt.Sprintf(" (%s)", formatBytes(total))
		}
		fmt.Fprintf(p.s.errWriter(), "%s%s…\n", task, size)
	}
}

// Add reports n more bytes of the download.
func (p *Progress) Add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.downloading {
		return
	}
	p.done += n
	p.draw(true)
}

// Done ends the download's line.
func (p *Progress) Done(error) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.downloading = false
	p.endLine()
}

// Waiting says that another spirit process holds the lock; it is said on
// pipes too, since the command may wait a while.
func (p *Progress) Waiting(lock string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLine()
	termtext.Fprintf(p.s.errWriter(), "Waiting for another spirit command to finish (lock %s)…\n", lock)
}

// Extracting reports bytes unpacked out of total, for sources of 4 MiB
// and more. A download unpacked as it streams keeps the download's bar:
// two tasks taking turns on one line would each start a line of their
// own at every turn.
func (p *Progress) Extracting(done, total int64) {
	if p == nil || total < unpackMin {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.downloading && p.total == total && p.done < p.total {
		p.streamed = total
	}
	if p.streamed == total {
		return
	}
	if p.task != "Unpacking" || p.total != total || done < p.done {
		p.endLine()
		p.begin("Unpacking", total)
	}
	p.done = done
	p.draw(true)
}

// Fetched reports that pkg was fetched, done of total.
func (p *Progress) Fetched(pkg string, done, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.task, p.total, p.downloading = termtext.Sprintf("fetched %d/%d %s", done, total, pkg), 0, false
	p.draw(false)
}

// Stop ends the line drawn so far, if any.
func (p *Progress) Stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLine()
}

func (p *Progress) endLine() {
	if p.drawn {
		fmt.Fprintln(p.s.errWriter())
		p.drawn = false
	}
}

// draw redraws the line of the task, with a bar, sizes, rate and time
// left when bytes is set (and only the size and rate when the total is
// unknown). A finished task ends its line.
func (p *Progress) draw(bytes bool) {
	if !p.s.IsStderrTTY() {
		return
	}
	now := p.now()
	finished := bytes && p.total > 0 && p.done >= p.total
	if !finished && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	// The line never wraps: a wrapped line cannot be redrawn in place.
	// On a narrow terminal the time left, the rate and the bar give way,
	// then the label (down to a few letters).
	width := p.s.TerminalWidth() - 1
	line := p.task
	if bytes {
		const labelMin = 12
		var tail string
		for drop := range barDetails {
			tail = barText(p.done, p.total, now.Sub(p.started), drop)
			if labelMin+1+utf8.RuneCountInString(tail) <= width {
				break
			}
		}
		line = cutRunes(line, max(width-utf8.RuneCountInString(tail)-1, labelMin)) + " " + tail
	}
	line = cutRunes(line, width)
	fmt.Fprintf(p.s.errWriter(), "\r\033[K%s", line)
	p.drawn = true
	if finished {
		p.endLine()
	}
}

// barDetails is how many details of the bar barText can drop.
const barDetails = 4

// barText is "[########            ]  40% 4.0/10.0 MiB 2.0 MiB/s 3s left", or
// "4.0 MiB 2.0 MiB/s" when the total is unknown, without the last drop
// details of time left, rate and bar (for a narrow terminal).
func barText(done, total int64, elapsed time.Duration, drop int) string {
	var b strings.Builder
	if total > 0 {
		const width = 20
		if drop < 3 {
			k := min(int(done*width/total), width)
			fmt.Fprintf(&b, "[%s%s] ", strings.Repeat("#", k), strings.Repeat(" ", width-k))
		}
		fmt.Fprintf(&b, "%3d%% %s", min(done*100/total, 100), formatPair(done, total))
	} else {
		b.WriteString(formatBytes(done))
	}
	if elapsed < 200*time.Millisecond || done <= 0 || drop >= 2 {
		return b.String()
	}
	rate := float64(done) / elapsed.Seconds()
	fmt.Fprintf(&b, " %s/s", formatBytes(int64(rate)))
	if total > 0 && done < total && drop < 1 {
		left := time.Duration(float64(total-done) / rate * float64(time.Second))
		fmt.Fprintf(&b, " %s left", formatETA(left))
	}
	return b.String()
}

// formatBytes is n in MiB with one decimal ("4.0 MiB"), or in KiB below
// one MiB.
func formatBytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// formatPair is "done/total unit" in the unit of total.
func formatPair(done, total int64) string {
	unit, div := "MiB", float64(1<<20)
	if total < 1<<20 {
		unit, div = "KiB", 1<<10
	}
	return fmt.Sprintf("%.1f/%.1f %s", float64(done)/div, float64(total)/div, unit)
}

// formatETA is a short duration: "42s", "3m05s", "1h02m".
func formatETA(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}

// cutRunes cuts s to at most n runes, so the line does not wrap (a
// wrapped line cannot be redrawn in place). Runes count as one column
// each: labels pass termtext, and the bar is ASCII.
func cutRunes(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// lineEnder is standard output or error as commands see it: a write first
// ends the progress line, so no text lands on the end of a bar.
type lineEnder struct {
	w io.Writer
	s *IOStreams
}

func (l *lineEnder) Write(b []byte) (int, error) {
	p := l.s.progressIfAny()
	if p == nil {
		return l.w.Write(b)
	}
	// Holding the progress lock, no bar is drawn between the end of its
	// line and this text.
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLine()
	return l.w.Write(b)
}
