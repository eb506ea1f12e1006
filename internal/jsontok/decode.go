package jsontok

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// Text returns the text of the string or name t, unescaped as
// encoding/json unescapes it: bytes that are not UTF-8, and \u escapes of
// surrogates that do not make a pair, become U+FFFD.
func (s *Scanner) Text(t Token) string {
	inner := s.data[t.Start+1 : t.End-1]
	if !t.escaped && (!t.nonASCII || utf8.Valid(inner)) {
		return string(inner)
	}
	b := make([]byte, 0, len(inner))
	for i := 0; i < len(inner); {
		c := inner[i]
		switch {
		case c == '\\':
			var r rune
			r, i = unescape(inner, i)
			b = utf8.AppendRune(b, r)
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(inner[i:]) // U+FFFD for a byte that is not UTF-8
			b = utf8.AppendRune(b, r)
			i += size
		}
	}
	return string(b)
}

// TextIs reports whether the text of the string or name t is text, without
// making a string where t has no escapes.
func (s *Scanner) TextIs(t Token, text string) bool {
	if !t.escaped && !t.nonASCII {
		return string(s.data[t.Start+1:t.End-1]) == text
	}
	return s.Text(t) == text
}

// unescape decodes the escape at b[i] (which the scanner checked) and
// returns the rune and the index after it. A \u escape of a high surrogate
// followed by one of a low surrogate is one rune; any other surrogate is
// U+FFFD.
func unescape(b []byte, i int) (rune, int) {
	switch b[i+1] {
	case 'b':
		return '\b', i + 2
	case 'f':
		return '\f', i + 2
	case 'n':
		return '\n', i + 2
	case 'r':
		return '\r', i + 2
	case 't':
		return '\t', i + 2
	case 'u':
		r := hex4(b[i+2:])
		i += 6
		if !utf16.IsSurrogate(r) {
			return r, i
		}
		if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
			if pair := utf16.DecodeRune(r, hex4(b[i+2:])); pair != utf8.RuneError {
				return pair, i + 6
			}
		}
		return utf8.RuneError, i
	}
	return rune(b[i+1]), i + 2 // " \ /
}

// hex4 is the value of four hexadecimal digits, or -1 if they are not.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		d := unhex(c)
		if d < 0 {
			return -1
		}
		r = r<<4 | d
	}
	return r
}

// Builder makes a reader's values of type V from a document's tokens.
type Builder[V any] interface {
	String(s string) V
	// Number gets the literal as written.
	Number(literal []byte) V
	Bool(b bool) V
	Null() V
	// Object gets the members in the order of the document, repeated
	// names included; how a repeated name counts is the builder's rule.
	// The slices are reused after the call.
	Object(names []string, values []V) V
	// Array gets the elements; the slice is reused after the call.
	Array(elems []V) V
}

// GoValues builds the values encoding/json's Decoder builds into an any
// with UseNumber: map[string]any (a repeated name keeps its last value),
// []any, string, json.Number, bool and nil.
type GoValues struct{}

func (GoValues) String(s string) any { return s }

func (GoValues) Number(literal []byte) any { return json.Number(literal) }

func (GoValues) Bool(b bool) any { return b }

func (GoValues) Null() any { return nil }

func (GoValues) Array(elems []any) any { return append(make([]any, 0, len(elems)), elems...) }

func (GoValues) Object(names []string, values []any) any {
	m := make(map[string]any, len(names))
	for i, n := range names {
		m[n] = values[i]
	}
	return m
}

// Decode reads the one JSON value data holds, white space around it
// allowed, and builds it with b. Nesting deeper than maxDepth is an error.
// Errors are *SyntaxError.
func Decode[V any](data []byte, maxDepth int, b Builder[V]) (V, error) {
	var zero V
	s := NewScanner(data, maxDepth)
	type open struct{ values, names int } // where an open container's values and names start
	var (
		values []V      // the members and elements of the open containers
		names  []string // the names of the open objects' members
		opened []open
	)
	for {
		t, err := s.Next()
		if err != nil {
			return zero, err
		}
		var v V
		switch t.Kind {
		case BeginObject, BeginArray:
			opened = append(opened, open{len(values), len(names)})
			continue
		case Name:
			names = append(names, s.Text(t))
			continue
		case EndObject, EndArray:
			o := opened[len(opened)-1]
			if t.Kind == EndObject {
				v = b.Object(names[o.names:], values[o.values:])
			} else {
				v = b.Array(values[o.values:])
			}
			values, names, opened = values[:o.values], names[:o.names], opened[:len(opened)-1]
		case String:
			v = b.String(s.Text(t))
		case Number:
			v = b.Number(s.Bytes(t))
		case True, False:
			v = b.Bool(t.Kind == True)
		case Null:
			v = b.Null()
		}
		if len(opened) > 0 {
			values = append(values, v)
			continue
		}
		if _, err := s.Next(); err != nil { // End, or data after the value
			return zero, err
		}
		return v, nil
	}
}
