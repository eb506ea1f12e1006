package jsjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// parseValid is Parse for bytes json.Valid accepted: one pass over them,
// where json.Decoder.Token allocates a token and re-scans for each. It
// returns false where Parse must decide (nesting deeper than MaxDepth), and
// on anything it does not expect, so that Parse's own reading reports it.
func parseValid(data []byte) (any, bool) {
	s := &validScanner{data: data}
	v, ok := s.value(0)
	if !ok {
		return nil, false
	}
	if s.space(); s.i != len(data) {
		return nil, false
	}
	return v, true
}

type validScanner struct {
	data []byte
	i    int
}

func (s *validScanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *validScanner) value(depth int) (any, bool) {
	s.space()
	if s.i >= len(s.data) {
		return nil, false
	}
	switch c := s.data[s.i]; c {
	case '{':
		if depth >= MaxDepth {
			return nil, false
		}
		s.i++
		o := Object{}
		for {
			s.space()
			if s.i < len(s.data) && s.data[s.i] == '}' {
				s.i++
				return o, true
			}
			key, ok := s.str()
			if !ok {
				return nil, false
			}
			if s.space(); s.i >= len(s.data) || s.data[s.i] != ':' {
				return nil, false
			}
			s.i++
			v, ok := s.value(depth + 1)
			if !ok {
				return nil, false
			}
			o = o.Set(key, v)
			if s.space(); s.i < len(s.data) && s.data[s.i] == ',' {
				s.i++
			}
		}
	case '[':
		if depth >= MaxDepth {
			return nil, false
		}
		s.i++
		a := []any{}
		for {
			s.space()
			if s.i < len(s.data) && s.data[s.i] == ']' {
				s.i++
				return a, true
			}
			v, ok := s.value(depth + 1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
			if s.space(); s.i < len(s.data) && s.data[s.i] == ',' {
				s.i++
			}
		}
	case '"':
		return s.str()
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	case 'n':
		return nil, s.literal("null")
	default:
		start := s.i
		for s.i < len(s.data) {
			c := s.data[s.i]
			if (c < '0' || c > '9') && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
				break
			}
			s.i++
		}
		f, err := strconv.ParseFloat(string(s.data[start:s.i]), 64)
		if (err != nil && !errors.Is(err, strconv.ErrRange)) || s.i == start {
			return nil, false
		}
		return f, true
	}
}

func (s *validScanner) literal(word string) bool {
	if !bytes.HasPrefix(s.data[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// str reads the string at s.i, unescaped as encoding/json unescapes it
// (invalid UTF-8 and lone surrogates become U+FFFD).
func (s *validScanner) str() (string, bool) {
	if s.i >= len(s.data) || s.data[s.i] != '"' {
		return "", false
	}
	escaped := false
	for j := s.i + 1; j < len(s.data); j++ {
		switch s.data[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			raw := s.data[s.i : j+1]
			s.i = j + 1
			if inner := raw[1 : len(raw)-1]; !escaped && utf8.Valid(inner) {
				return string(inner), true
			}
			var out string
			if json.Unmarshal(raw, &out) != nil {
				return "", false
			}
			return out, true
		}
	}
	return "", false
}
