package manifest

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// rawMember returns the bytes of the value of key in the JSON object data,
// the last one when the key repeats (JSON.parse keeps the last), or nil
// when data is not an object or has no such key. Keys are compared after
// unescaping, as JSON.parse compares them. data is a value decodeJSON
// accepted; on other bytes rawMember returns nil or some value, never
// panics. It reads the bytes once and builds nothing, where
// json.Unmarshal into a map[string]json.RawMessage checks and copies them.
func rawMember(data []byte, key string) []byte {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil
	}
	var found []byte
	i = skipSpace(data, i+1)
	for i < len(data) && data[i] == '"' {
		k, end, ok := readKey(data, i)
		if !ok {
			return nil
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return nil
		}
		start := skipSpace(data, i+1)
		end, ok = skipValue(data, start)
		if !ok {
			return nil
		}
		if k == key {
			found = data[start:end]
		}
		i = skipSpace(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return found
}

// rawElements returns the bytes of each element of the JSON array data, or
// nil when data is not an array. Like rawMember it never panics.
func rawElements(data []byte) [][]byte {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil
	}
	out := [][]byte{}
	i = skipSpace(data, i+1)
	for i < len(data) && data[i] != ']' {
		end, ok := skipValue(data, i)
		if !ok || end == i {
			return nil
		}
		out = append(out, data[i:end])
		i = skipSpace(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return out
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// readKey reads the string at data[i] (a '"') and returns it unescaped and
// the index after its closing quote.
func readKey(data []byte, i int) (string, int, bool) {
	end, ok := skipString(data, i)
	if !ok {
		return "", 0, false
	}
	raw := data[i+1 : end-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw), end, true
	}
	var s string
	if json.Unmarshal(data[i:end], &s) != nil {
		return "", 0, false
	}
	return s, end, true
}

// skipString returns the index after the string that starts at data[i].
func skipString(data []byte, i int) (int, bool) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// skipValue returns the index after the value that starts at data[i].
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, ok := skipString(data, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	default: // a number, true, false or null
		j := i
		for j < len(data) {
			switch data[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j, j > i
			}
			j++
		}
		return j, j > i
	}
}

// decodeValid builds the values decodeJSON returns (map[string]any with
// the last of repeated keys, []any, string, json.Number, bool, nil) from
// bytes json.Valid accepted, in one pass: json.Decoder copies them into
// its buffer and scans them twice. It returns false on anything it does
// not expect, for decodeJSON's own reading to report.
func decodeValid(data []byte) (any, bool) {
	s := &valueScanner{data: data}
	v, ok := s.value()
	if i := skipSpace(data, s.i); !ok || i != len(data) {
		return nil, false
	}
	return v, true
}

type valueScanner struct {
	data []byte
	i    int
}

func (s *valueScanner) value() (any, bool) {
	s.i = skipSpace(s.data, s.i)
	if s.i >= len(s.data) {
		return nil, false
	}
	switch s.data[s.i] {
	case '{':
		s.i++
		m := map[string]any{}
		for {
			s.i = skipSpace(s.data, s.i)
			if s.i < len(s.data) && s.data[s.i] == '}' {
				s.i++
				return m, true
			}
			if s.i >= len(s.data) || s.data[s.i] != '"' {
				return nil, false
			}
			key, end, ok := readKey(s.data, s.i)
			if !ok {
				return nil, false
			}
			if s.i = skipSpace(s.data, end); s.i >= len(s.data) || s.data[s.i] != ':' {
				return nil, false
			}
			s.i++
			v, ok := s.value()
			if !ok {
				return nil, false
			}
			m[key] = v
			if s.i = skipSpace(s.data, s.i); s.i < len(s.data) && s.data[s.i] == ',' {
				s.i++
			}
		}
	case '[':
		s.i++
		a := []any{}
		for {
			s.i = skipSpace(s.data, s.i)
			if s.i < len(s.data) && s.data[s.i] == ']' {
				s.i++
				return a, true
			}
			v, ok := s.value()
			if !ok {
				return nil, false
			}
			a = append(a, v)
			if s.i = skipSpace(s.data, s.i); s.i < len(s.data) && s.data[s.i] == ',' {
				s.i++
			}
		}
	case '"':
		str, end, ok := readKey(s.data, s.i)
		s.i = end
		return str, ok
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	case 'n':
		return nil, s.literal("null")
	default:
		end, ok := skipValue(s.data, s.i)
		if !ok {
			return nil, false
		}
		n := json.Number(s.data[s.i:end])
		s.i = end
		return n, true
	}
}

func (s *valueScanner) literal(word string) bool {
	if !bytes.HasPrefix(s.data[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}
