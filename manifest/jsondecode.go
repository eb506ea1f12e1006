package manifest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeJSON parses one JSON document into the values the schema validator
// works on: map[string]any, []any, string, json.Number, bool and nil. It
// refuses invalid UTF-8, nesting deeper than MaxDepth and anything after
// the document. It is a plain recursive-descent parser, several times
// faster than encoding/json's decoding into interfaces; FuzzDecodeJSON
// holds it to encoding/json's answers.
func decodeJSON(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, &jsonError{msg: "the file is not UTF-8 text", offset: -1}
	}
	d := &decoder{data: data}
	d.space()
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.space()
	if d.pos < len(d.data) {
		return nil, d.errorf("invalid character %s after top-level value", quoteChar(d.data[d.pos]))
	}
	return v, nil
}

// jsonError says what is wrong and at which byte offset (-1: none).
type jsonError struct {
	msg    string
	offset int
}

func (e *jsonError) Error() string { return e.msg }

type decoder struct {
	data  []byte
	pos   int
	depth int
}

func (d *decoder) errorf(format string, a ...any) error {
	return &jsonError{msg: fmt.Sprintf(format, a...), offset: d.pos}
}

func (d *decoder) eof() error {
	return &jsonError{msg: "unexpected end of JSON input", offset: len(d.data)}
}

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

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value() (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.eof()
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	default:
		return nil, d.errorf("invalid character %s looking for beginning of value", quoteChar(c))
	}
}

func (d *decoder) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if d.pos >= len(d.data) {
			return d.eof()
		}
		if d.data[d.pos] != word[i] {
			return d.errorf("invalid character %s in literal %s (expecting %s)", quoteChar(d.data[d.pos]), word, quoteChar(word[i]))
		}
		d.pos++
	}
	return nil
}

func (d *decoder) enter() error {
	d.depth++
	if d.depth > MaxDepth {
		return &jsonError{msg: fmt.Sprintf("nesting is deeper than %d levels", MaxDepth), offset: d.pos}
	}
	return nil
}

func (d *decoder) object() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.pos++ // {
	obj := map[string]any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		d.depth--
		return obj, nil
	}
	for {
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.eof()
		}
		if d.data[d.pos] != '"' {
			return nil, d.errorf("invalid character %s looking for beginning of object key string", quoteChar(d.data[d.pos]))
		}
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.eof()
		}
		if d.data[d.pos] != ':' {
			return nil, d.errorf("invalid character %s after object key", quoteChar(d.data[d.pos]))
		}
		d.pos++
		d.space()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		obj[key] = v
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.eof()
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			d.depth--
			return obj, nil
		default:
			return nil, d.errorf("invalid character %s after object key:value pair", quoteChar(d.data[d.pos]))
		}
	}
}

func (d *decoder) array() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.pos++ // [
	arr := []any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		d.depth--
		return arr, nil
	}
	for {
		d.space()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.eof()
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			d.depth--
			return arr, nil
		default:
			return nil, d.errorf("invalid character %s after array element", quoteChar(d.data[d.pos]))
		}
	}
}

func (d *decoder) str() (string, error) {
	d.pos++ // opening quote
	start := d.pos
	for d.pos < len(d.data) {
		switch c := d.data[d.pos]; {
		case c == '"':
			s := string(d.data[start:d.pos])
			d.pos++
			return s, nil
		case c == '\\':
			return d.escapedStr(start)
		case c < 0x20:
			return "", d.errorf("invalid character %s in string literal", quoteChar(c))
		default:
			d.pos++
		}
	}
	return "", d.eof()
}

// escapedStr finishes a string that has escapes, from start (just after the quote).
func (d *decoder) escapedStr(start int) (string, error) {
	buf := append([]byte(nil), d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(buf), nil
		case c < 0x20:
			return "", d.errorf("invalid character %s in string literal", quoteChar(c))
		case c != '\\':
			buf = append(buf, c)
			d.pos++
			continue
		}
		d.pos++ // backslash
		if d.pos >= len(d.data) {
			return "", d.eof()
		}
		e := d.data[d.pos]
		d.pos++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := d.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
					save := d.pos
					d.pos += 2
					if r2, err = d.hex4(); err != nil {
						return "", err
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						buf = utf8.AppendRune(buf, dec)
						continue
					}
					d.pos = save
				}
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
		default:
			d.pos--
			return "", d.errorf("invalid character %s in string escape code", quoteChar(e))
		}
	}
	return "", d.eof()
}

func (d *decoder) hex4() (rune, error) {
	var r rune
	for i := 0; i < 4; i++ {
		if d.pos >= len(d.data) {
			return 0, d.eof()
		}
		c := d.data[d.pos]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, d.errorf("invalid character %s in \\u hexadecimal character escape", quoteChar(c))
		}
		d.pos++
	}
	return r, nil
}

func (d *decoder) number() (any, error) {
	start := d.pos
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	expect := func(what string) error {
		if d.pos >= len(d.data) {
			return d.eof()
		}
		return d.errorf("invalid character %s in %s", quoteChar(d.data[d.pos]), what)
	}
	if d.data[d.pos] == '-' {
		d.pos++
	}
	if d.pos < len(d.data) && d.data[d.pos] == '0' {
		d.pos++
	} else if digits() == 0 {
		return nil, expect("numeric literal")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return nil, expect("numeric literal")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return nil, expect("exponent of numeric literal")
		}
	}
	return json.Number(d.data[start:d.pos]), nil
}
