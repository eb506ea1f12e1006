package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// decodeJSON parses one JSON document into the values the schema validator
// works on: map[string]any, []any, string, json.Number, bool and nil, with
// encoding/json (a repeated key keeps its last value). Before it, two cheap
// scans refuse what encoding/json would let through: invalid UTF-8 (which
// it would replace) and nesting deeper than MaxDepth (which it would
// follow to its own limit of 10,000). Anything after the document is
// refused too. Errors carry the byte offset they are about. Valid bytes
// are read by decodeValid in one pass; the decoder reads (and words the
// errors of) the others, and FuzzDecodeJSON holds both to encoding/json.
func decodeJSON(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, &jsonError{msg: "the file is not UTF-8 text", offset: -1}
	}
	if err := checkDepth(data); err != nil {
		return nil, err
	}
	if json.Valid(data) {
		if v, ok := decodeValid(data); ok {
			return v, nil
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &jsonError{msg: "unexpected end of JSON input", offset: len(data)}
		case errors.As(err, &se):
			// Offset counts the bytes read, the bad one included.
			return nil, &jsonError{msg: se.Error(), offset: max(int(se.Offset)-1, 0)}
		default:
			return nil, &jsonError{msg: err.Error(), offset: -1}
		}
	}
	for off := int(dec.InputOffset()); off < len(data); off++ {
		switch c := data[off]; c {
		case ' ', '\t', '\n', '\r':
		default:
			return nil, &jsonError{msg: fmt.Sprintf("invalid character %s after top-level value", quoteChar(c)), offset: off}
		}
	}
	return v, nil
}

// checkDepth refuses nesting deeper than MaxDepth, counting brackets
// outside strings. It does not check the syntax; the decoder does.
func checkDepth(data []byte) error {
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > MaxDepth {
				return &jsonError{msg: fmt.Sprintf("nesting is deeper than %d levels", MaxDepth), offset: i}
			}
		case ']', '}':
			depth--
		}
	}
	return nil
}

// jsonError says what is wrong and at which byte offset (-1: none).
type jsonError struct {
	msg    string
	offset int
}

func (e *jsonError) Error() string { return e.msg }

func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	if c >= utf8.RuneSelf {
		s = strconv.Quote(string([]byte{c}))
	}
	return "'" + s[1:len(s)-1] + "'"
}
