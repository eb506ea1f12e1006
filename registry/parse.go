package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 512

// ParseValue parses one JSON document (RFC 8259) into a Value, keeping key
// order and number literals. Invalid UTF-8 and lone surrogates in strings
// become U+FFFD, as in encoding/json and jq. Anything but white space after
// the value is an error.
func ParseValue(data []byte) (*Value, error) {
	p := &parser{data: data}
	p.skipSpace()
	v, err := p.value(0)
	if err == nil {
		p.skipSpace()
		if p.pos < len(p.data) {
			err = errors.New("unexpected data after the JSON value")
		}
	}
	if err != nil {
		return nil, p.errorAt(err)
	}
	return v, nil
}

type parser struct {
	data []byte
	pos  int
}

func (p *parser) errorAt(err error) error {
	off := min(p.pos, len(p.data))
	line := 1 + bytes.Count(p.data[:off], []byte("\n"))
	col := off - (bytes.LastIndexByte(p.data[:off], '\n') + 1)
	return &ParseError{Line: line, Column: col, Err: err}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

var errEOF = errors.New("unexpected end of JSON input")

func (p *parser) unexpected() error {
	if p.pos >= len(p.data) {
		return errEOF
	}
	return fmt.Errorf("invalid character %q", p.data[p.pos])
}

func (p *parser) literal(word string) bool {
	if bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		p.pos += len(word)
		return true
	}
	return false
}

func (p *parser) value(depth int) (*Value, error) {
	if p.pos >= len(p.data) {
		return nil, errEOF
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return String(s), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.literal("true"):
		return &Value{Kind: KindTrue}, nil
	case p.literal("false"):
		return &Value{Kind: KindFalse}, nil
	case p.literal("null"):
		return &Value{Kind: KindNull}, nil
	}
	return nil, p.unexpected()
}

func (p *parser) object(depth int) (*Value, error) {
	if depth >= maxDepth {
		return nil, errors.New("JSON nested too deeply")
	}
	p.pos++ // {
	obj := &Value{Kind: KindObject}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return obj, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.unexpected()
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.unexpected()
		}
		p.pos++
		p.skipSpace()
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		obj.Set(key, val)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, errEOF
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return obj, nil
		default:
			return nil, p.unexpected()
		}
	}
}

func (p *parser) array(depth int) (*Value, error) {
	if depth >= maxDepth {
		return nil, errors.New("JSON nested too deeply")
	}
	p.pos++ // [
	arr := &Value{Kind: KindArray}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return arr, nil
	}
	for {
		p.skipSpace()
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		arr.Elems = append(arr.Elems, e)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, errEOF
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return arr, nil
		default:
			return nil, p.unexpected()
		}
	}
}

// str reads a string literal. Plain ASCII is taken as is; anything with
// escapes or other bytes is decoded by encoding/json, which validates it
// and replaces bad UTF-8 with U+FFFD.
func (p *parser) str() (string, error) {
	start := p.pos
	p.pos++ // "
	simple := true
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			if simple {
				return string(p.data[start+1 : p.pos-1]), nil
			}
			var s string
			if err := json.Unmarshal(p.data[start:p.pos], &s); err != nil {
				p.pos = start
				return "", fmt.Errorf("invalid string: %w", err)
			}
			return s, nil
		case c == '\\':
			simple = false
			p.pos += 2
			continue
		case c < 0x20:
			return "", fmt.Errorf("invalid character %q in string literal", c)
		case c >= 0x80:
			simple = false
		}
		p.pos++
	}
	return "", errEOF
}

// number checks the JSON number grammar and keeps the literal.
func (p *parser) number() (*Value, error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.unexpected()
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.unexpected()
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.unexpected()
		}
	}
	return Number(string(p.data[start:p.pos])), nil
}
