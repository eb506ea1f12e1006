package cli

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/width"

	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/internal/termtext"
)

// tablePrinter prints rows as gh does. On a terminal: a header, columns
// aligned with two spaces, the one flexible column cut with "…" so a row
// fits the terminal width, and colour when it is on. Off a terminal: no
// header, one line per row, cells separated by a tab and never cut, so
// `cut -f` and `awk -F'\t'` read it (and no colour unless CLICOLOR_FORCE
// asks for it). Cells are sanitised with termtext.Line: tabs and newlines
// are escaped, so they cannot split a cell or a row.
type tablePrinter struct {
	w      io.Writer
	tty    bool
	width  int
	header []string
	rows   [][]tableCell
	// flex is the column that is cut to fit the width, -1 for none.
	flex int
	cs   *iostreams.ColorScheme
}

type tableCell struct {
	text  string
	color func(string) string
}

func newTablePrinter(ios *iostreams.IOStreams, flex int, header ...string) *tablePrinter {
	return &tablePrinter{w: ios.Out, tty: ios.IsStdoutTTY(), width: ios.TerminalWidth(), header: header, flex: flex, cs: ios.ColorScheme()}
}

// addRow adds a row of plain cells.
func (t *tablePrinter) addRow(cells ...string) {
	row := make([]tableCell, len(cells))
	for i, c := range cells {
		row[i] = tableCell{text: termtext.Line(c)}
	}
	t.rows = append(t.rows, row)
}

// colorCell colours cell i of the last row (on a terminal with colour on).
func (t *tablePrinter) colorCell(i int, color func(string) string) {
	t.rows[len(t.rows)-1][i].color = color
}

func (t *tablePrinter) render() error {
	if !t.tty {
		for _, row := range t.rows {
			cells := make([]string, len(row))
			for i, c := range row {
				cells[i] = c.text
				if c.color != nil {
					// Only with CLICOLOR_FORCE: colour is off on a pipe.
					cells[i] = c.color(c.text)
				}
			}
			if _, err := fmt.Fprintln(t.w, strings.Join(cells, "\t")); err != nil {
				return err
			}
		}
		return nil
	}
	const gap = 2
	widths := make([]int, len(t.header))
	for i, h := range t.header {
		widths[i] = displayWidth(h)
	}
	for _, row := range t.rows {
		for i, c := range row {
			widths[i] = max(widths[i], displayWidth(c.text))
		}
	}
	if t.flex >= 0 {
		other := 0
		for i, w := range widths {
			if i != t.flex {
				other += w + gap
			}
		}
		// The flexible column keeps at least a few characters, even if
		// the row then wraps on a very narrow terminal.
		widths[t.flex] = max(min(widths[t.flex], t.width-other), min(widths[t.flex], 10))
	}
	line := func(cells []tableCell) error {
		var b strings.Builder
		for i, c := range cells {
			text := truncateWidth(c.text, widths[i])
			pad := widths[i] - displayWidth(text)
			if c.color != nil {
				text = c.color(text)
			}
			b.WriteString(text)
			if i < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", pad+gap))
			}
		}
		// An empty last cell leaves no trailing spaces.
		_, err := fmt.Fprintln(t.w, strings.TrimRight(b.String(), " "))
		return err
	}
	head := make([]tableCell, len(t.header))
	for i, h := range t.header {
		head[i] = tableCell{text: h, color: t.cs.Bold}
	}
	if err := line(head); err != nil {
		return err
	}
	for _, row := range t.rows {
		if err := line(row); err != nil {
			return err
		}
	}
	return nil
}

// runeWidth is the number of terminal columns r takes: two for East
// Asian wide and fullwidth characters, none for combining marks and
// other zero-width runes, one otherwise.
func runeWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// truncateWidth cuts s to at most w columns, ending it with "…" when cut.
func truncateWidth(s string, w int) string {
	if displayWidth(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		rw := runeWidth(r)
		if n+rw > w-1 {
			break
		}
		b.WriteRune(r)
		n += rw
	}
	return b.String() + "…"
}

// fuzzyAgo says how long ago t was, as people say it: "just now",
// "5 minutes ago", "3 days ago", "about 2 years ago". A time in the future
// (a clock moved back) is shown as an absolute date.
func fuzzyAgo(now, t time.Time) string {
	d := now.Sub(t)
	ago := func(n int, unit string) string { return plural(n, unit) + " ago" }
	switch {
	case d < -time.Minute:
		return t.UTC().Format("2006-01-02")
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return ago(int(d/time.Minute), "minute")
	case d < 24*time.Hour:
		return ago(int(d/time.Hour), "hour")
	case d < 30*24*time.Hour:
		return ago(int(d/(24*time.Hour)), "day")
	case d < 365*24*time.Hour:
		return ago(int(d/(30*24*time.Hour)), "month")
	}
	return "about " + ago(int(d/(365*24*time.Hour)), "year")
}

// startPager sends the rest of the command's standard output through the
// user's pager when it is a terminal (SPIRIT_PAGER, PAGER, or less -FRX)
// and returns the function that waits for the pager to end. A pager that
// cannot start is reported once and the text is printed as it is.
func (f *Factory) startPager() (stop func()) {
	if err := f.IO.StartPager(iostreams.PagerCommand(f.Getenv)); err != nil {
		termtext.Fprintf(f.IO.ErrOut, "spirit: %v; printing without a pager\n", err)
	}
	return f.IO.StopPager
}

// clock returns f.Now, or time.Now for a Factory made without one.
func (f *Factory) clock() time.Time {
	if f.Now == nil {
		return time.Now()
	}
	return f.Now()
}
