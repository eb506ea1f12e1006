// Package termtext makes text that came from outside (a marketplace index,
// a package, an extension, a server) safe to print on a terminal or in a CI
// log. It is the one sanitiser of spirit's human output; JSON output never
// goes through it.
//
// The rules:
//   - C0 controls, DEL and C1 controls are shown escaped, as \x1b or \u009b,
//     so no escape sequence (CSI, OSC 8 links, OSC 52 clipboard writes,
//     title changes) and no carriage return reaches the terminal.
//   - Unicode bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F,
//     U+061C) are escaped as \u202e, so text cannot be reordered on screen.
//   - Invalid UTF-8 bytes are escaped as \xff.
//   - A backslash that would start one of those escapes stays as it is: the
//     output is for reading, not for decoding.
//   - One-line values (Line, and every operand of Fprintf) also escape tab and
//     newline, so a name cannot start a line of its own. Multi-line text
//     (Text, Multiline operands) keeps tab and newline, turns CRLF into LF,
//     and escapes a lone CR.
//   - A line never starts with "::" (after spaces and tabs), which GitHub
//     Actions reads as a workflow command: the first colon is shown as \x3a.
//
// JSON output that is not a contract of exact bytes (the JSON results of
// --jq) goes through JSON, which writes the characters above as \u escapes
// and so keeps the value.
package termtext

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Line returns s escaped as a one-line value: every control character,
// newline and tab included, is shown escaped, and it does not start with a
// workflow command.
func Line(s string) string {
	if isPlain(s) {
		return guardLines(s)
	}
	var b strings.Builder
	escape(&b, s, false)
	return guardLines(b.String())
}

// Text returns s escaped as multi-line text (a README, a description, an
// error message): newlines and tabs stay, everything else follows Line,
// and no line starts with a workflow command.
func Text(s string) string {
	var b strings.Builder
	escape(&b, s, true)
	return guardLines(b.String())
}

// Multiline marks an operand of Fprintf that may hold newlines (a README,
// a prompt from an extension): it is escaped with the rules of Text instead
// of those of Line.
type Multiline string

// Sprintf formats like fmt.Sprintf, with every operand escaped as by Line
// (or by Text for a Multiline operand), and guards the line starts of the
// result. The format is spirit's own text and is not escaped. A width or
// precision given as an operand (%*d) is not supported.
func Sprintf(format string, args ...any) string {
	wrapped := make([]any, len(args))
	for i, a := range args {
		wrapped[i] = operand{a}
	}
	return guardLines(fmt.Sprintf(format, wrapped...))
}

// Fprintf writes Sprintf(format, args...) to w.
func Fprintf(w io.Writer, format string, args ...any) (int, error) {
	return io.WriteString(w, Sprintf(format, args...))
}

// Fprintln writes the operands like fmt.Fprintln, each escaped as by Line
// (or Text for a Multiline operand).
func Fprintln(w io.Writer, args ...any) (int, error) {
	format := strings.TrimSuffix(strings.Repeat("%v ", len(args)), " ") + "\n"
	return Fprintf(w, format, args...)
}

// operand formats its value with the verb and flags it was given, then
// escapes the result.
type operand struct{ v any }

func (o operand) Format(st fmt.State, verb rune) {
	var b strings.Builder
	_, multi := o.v.(Multiline)
	escape(&b, fmt.Sprintf(fmt.FormatString(st, verb), o.v), multi)
	io.WriteString(st, b.String())
}

// JSON returns the JSON text b with the characters that encoding/json
// leaves as they are but Line would escape (DEL, C1 controls, bidi
// controls) written as \uXXXX escapes: the same JSON value, safe on a
// terminal and in a CI log. C0 controls are already escaped in JSON strings,
// and those characters cannot occur outside a string. b must be valid UTF-8
// (encoding/json's output is).
func JSON(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		if b[i] < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == 0x7f || r >= 0x80 && r <= 0x9f || isBidi(r) {
			out = append(out, b[last:i]...)
			out = fmt.Appendf(out, `\u%04x`, r)
			last = i + size
		}
		i += size
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// isPlain reports whether s is printable ASCII only.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// escape writes s to b with the control characters escaped; multi keeps
// newlines and tabs and drops the CR of a CRLF.
func escape(b *strings.Builder, s string, multi bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case multi && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case multi && r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// CRLF: the LF that follows ends the line.
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(b, `\u%04x`, r)
		case isBidi(r):
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
}

// isBidi reports whether r changes the direction of the text around it.
func isBidi(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// guardLines escapes the first colon of every line that starts, after
// spaces and tabs, with "::".
func guardLines(s string) string {
	if !strings.Contains(s, "::") {
		return s
	}
	var b bytes.Buffer
	for line := range strings.SplitAfterSeq(s, "\n") {
		rest := strings.TrimLeft(line, " \t")
		if strings.HasPrefix(rest, "::") {
			b.WriteString(line[:len(line)-len(rest)])
			b.WriteString(`\x3a`)
			b.WriteString(rest[1:])
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}
