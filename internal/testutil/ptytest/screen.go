package ptytest

import (
	"strings"
	"unicode/utf8"
)

// Screen is a small model of a terminal of a fixed width that never
// scrolls back: it keeps every row written, so a test can count the rows
// a program used. It knows what spirit draws: text, \r, \n, \b, a line
// wrapped at the width (the cursor waits at the end of a full row and
// the next character starts a new one, as xterm does), CSI K (erase to
// the end of the line) and other escape sequences, which it skips.
type Screen struct {
	width   int
	rows    [][]rune
	row     int
	col     int
	pending bool // at the end of a full row: the next character wraps
}

// NewScreen returns an empty screen cols wide.
func NewScreen(cols int) *Screen { return &Screen{width: cols, rows: [][]rune{nil}} }

// Write draws b.
func (s *Screen) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		switch {
		case r == '\r':
			s.col, s.pending = 0, false
		case r == '\n':
			s.newRow()
		case r == '\b':
			if s.col > 0 {
				s.col--
			}
			s.pending = false
		case r == 0x1b:
			b = s.escape(b)
		case r < 0x20 || r == 0x7f:
			// bell and other controls draw nothing
		default:
			s.put(r)
		}
	}
	return n, nil
}

func (s *Screen) newRow() {
	s.row++
	s.col, s.pending = 0, false
	for len(s.rows) <= s.row {
		s.rows = append(s.rows, nil)
	}
}

func (s *Screen) put(r rune) {
	if s.pending {
		s.newRow()
	}
	line := s.rows[s.row]
	for len(line) <= s.col {
		line = append(line, ' ')
	}
	line[s.col] = r
	s.rows[s.row] = line
	if s.col == s.width-1 {
		s.pending = true
	} else {
		s.col++
	}
}

// escape reads an escape sequence after ESC and returns what follows it.
func (s *Screen) escape(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	if b[0] != '[' {
		return b[1:] // ESC and one character
	}
	i := 1
	for i < len(b) && (b[i] < 0x40 || b[i] > 0x7e) {
		i++
	}
	if i == len(b) {
		return nil
	}
	if b[i] == 'K' && (i == 1 || string(b[1:i]) == "0") {
		line := s.rows[s.row]
		if s.col < len(line) {
			s.rows[s.row] = line[:s.col]
		}
		s.pending = false
	}
	return b[i+1:]
}

// Rows returns the rows written, without trailing blanks, and without
// the empty row the cursor may stand on at the end.
func (s *Screen) Rows() []string {
	rows := make([]string, 0, len(s.rows))
	for _, r := range s.rows {
		rows = append(rows, strings.TrimRight(string(r), " "))
	}
	if len(rows) > 0 && rows[len(rows)-1] == "" {
		rows = rows[:len(rows)-1]
	}
	return rows
}
