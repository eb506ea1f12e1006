package ptytest

import (
	"slices"
	"testing"
)

func TestScreen(t *testing.T) {
	tests := []struct {
		name  string
		cols  int
		drawn string
		want  []string
	}{
		{name: "redrawn in place", cols: 20, drawn: "\r\x1b[Kone 10%\r\x1b[Kone 100%\r\nnext\r\n", want: []string{"one 100%", "next"}},
		{name: "a shorter redraw clears the rest", cols: 20, drawn: "long long line\r\x1b[Kshort", want: []string{"short"}},
		{name: "a full row waits to wrap", cols: 5, drawn: "abcde\r\x1b[Kxy", want: []string{"xy"}},
		{name: "a longer line wraps", cols: 5, drawn: "abcdefg\r\x1b[Kxy", want: []string{"abcde", "xy"}},
		{name: "colours are skipped", cols: 20, drawn: "\x1b[1mbold\x1b[0m text\n", want: []string{"bold text"}},
		{name: "backspace", cols: 20, drawn: "ab\bc", want: []string{"ac"}},
	}
	for _, tt := range tests {
		s := NewScreen(tt.cols)
		s.Write([]byte(tt.drawn))
		if got := s.Rows(); !slices.Equal(got, tt.want) {
			t.Errorf("%s: rows %q, want %q", tt.name, got, tt.want)
		}
	}
}
