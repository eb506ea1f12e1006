package registry

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Encode returns v as jq 1.6 prints it by default: two-space indentation,
// keys in insertion order, numbers as doubles in jq's shortest form, and
// strings with jq's escapes (raw UTF-8, U+2028/U+2029 included; \u007f;
// lower-case \u00XX for the other control characters; nothing escaped for
// HTML). The result ends in one newline, as jq's output does; the build
// adds the second one that the reference's `echo` adds.
func Encode(v *Value) []byte {
	var b strings.Builder
	writeValue(&b, v, 0, 0)
	b.WriteByte('\n')
	return []byte(b.String())
}

// writeValue writes v at the given depth; indent < 0 means compact.
func writeValue(b *strings.Builder, v *Value, indent, depth int) {
	if v == nil {
		b.WriteString("null")
		return
	}
	switch v.Kind {
	case KindNull:
		b.WriteString("null")
	case KindFalse:
		b.WriteString("false")
	case KindTrue:
		b.WriteString("true")
	case KindNumber:
		b.WriteString(FormatNumber(v.Str))
	case KindString:
		writeString(b, v.Str)
	case KindArray:
		if len(v.Elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, indent, depth+1)
			writeValue(b, e, indent, depth+1)
		}
		newline(b, indent, depth)
		b.WriteByte(']')
	case KindObject:
		if len(v.Keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range v.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, indent, depth+1)
			writeString(b, k)
			b.WriteByte(':')
			if indent >= 0 {
				b.WriteByte(' ')
			}
			writeValue(b, v.Vals[i], indent, depth+1)
		}
		newline(b, indent, depth)
		b.WriteByte('}')
	}
}

func newline(b *strings.Builder, indent, depth int) {
	if indent < 0 {
		return
	}
	b.WriteByte('\n')
	for range depth {
		b.WriteString("  ")
	}
}

const hexDigits = "0123456789abcdef"

// writeString writes s quoted with jq's escapes.
func writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteString("\ufffd")
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if c < 0x20 || c == 0x7f {
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
			} else {
				b.WriteByte(c)
			}
		}
		i++
	}
	b.WriteByte('"')
}

// FormatNumber prints a JSON number literal as jq 1.6 does: parsed to a
// double (infinities clamped to ±DBL_MAX), then the shortest digits that
// round-trip, in plain notation unless the exponent is below -4 or more
// than 15 digits past the significant ones (jvp_dtoa_fmt).
func FormatNumber(lit string) string {
	f := (&Value{Kind: KindNumber, Str: lit}).float()
	if f != f {
		return "null"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	neg := strings.HasPrefix(e, "-")
	e = strings.TrimPrefix(e, "-")
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	decpt := x + 1
	if digits == "0" {
		decpt = 1
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch {
	case decpt <= -4 || decpt > len(digits)+15:
		b.WriteByte(digits[0])
		if len(digits) > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		d := decpt - 1
		if d < 0 {
			b.WriteByte('-')
			d = -d
		} else {
			b.WriteByte('+')
		}
		if d < 10 {
			b.WriteByte('0')
		}
		b.WriteString(strconv.Itoa(d))
	case decpt <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -decpt))
		b.WriteString(digits)
	default:
		if decpt >= len(digits) {
			b.WriteString(digits)
			b.WriteString(strings.Repeat("0", decpt-len(digits)))
		} else {
			b.WriteString(digits[:decpt])
			b.WriteByte('.')
			b.WriteString(digits[decpt:])
		}
	}
	return b.String()
}

func sortStrings(s []string) { slices.Sort(s) }
