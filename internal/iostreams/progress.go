package iostreams

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spiritagents/spirit/internal/termtext"
)

// Progress is the one progress line of a run, on standard error. It is
// drawn only when standard error is a terminal, at most ten times a second
// (and always at the end of a task); pipes get nothing but the waiting
// notice. Its methods serve the progress interfaces of the domain
// packages (npm downloads, install unpacking, registry fetches), are safe
// for concurrent use, and are no-ops on a nil *Progress. Labels come from
// outside and are escaped with termtext.
type Progress struct {
	s     *IOStreams
	mu    sync.Mutex
	label string
	done  int64
	total int64
	last  time.Time
	drawn bool
}

// Progress returns the streams' progress line.
func (s *IOStreams) Progress() *Progress {
	if s.progress == nil {
		s.progress = &Progress{s: s}
	}
	return s.progress
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
	p.label, p.done, p.total = label, 0, total
}

// Add reports n more bytes of the download.
func (p *Progress) Add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.draw("Downloading "+termtext.Line(p.label), p.done, p.total, true)
}

// Done ends the download's line.
func (p *Progress) Done(error) { p.Stop() }

// Waiting says that another spirit process holds the lock; it is said on
// pipes too, since the command may wait a while.
func (p *Progress) Waiting(lock string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLine()
	termtext.Fprintf(p.s.ErrOut, "Waiting for another spirit command to finish (lock %s)…\n", lock)
}

// Extracting reports bytes unpacked out of total, for sources of 4 MiB
// and more.
func (p *Progress) Extracting(done, total int64) {
	if p == nil || total < unpackMin {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw("Unpacking", done, total, true)
}

// Fetched reports that pkg was fetched, done of total.
func (p *Progress) Fetched(pkg string, done, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(termtext.Sprintf("fetched %d/%d %s", done, total, pkg), 0, 0, false)
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
		fmt.Fprintln(p.s.ErrOut)
		p.drawn = false
	}
}

// draw redraws the line as what, with a bar and sizes when bytes is set
// (and a size without a bar when total is unknown).
func (p *Progress) draw(what string, done, total int64, bytes bool) {
	if !p.s.IsStderrTTY() {
		return
	}
	now := time.Now()
	if (total <= 0 || done < total) && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	line := what
	switch {
	case bytes && total > 0:
		const width = 30
		k := min(int(done*width/total), width)
		line += fmt.Sprintf(" [%s%s] %3d%% %.1f/%.1f MiB", strings.Repeat("#", k), strings.Repeat(" ", width-k),
			done*100/total, mib(done), mib(total))
	case bytes:
		line += fmt.Sprintf(" %.1f MiB", mib(done))
	}
	fmt.Fprintf(p.s.ErrOut, "\r\033[K%s", line)
	p.drawn = true
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
