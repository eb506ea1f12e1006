package registry

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/spiritagents/spirit/internal/jsontok"
)

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 512

// ParseValue parses one JSON document (RFC 8259) into a Value, keeping key
// order and number literals. Invalid UTF-8 and lone surrogates in strings
// become U+FFFD, as in encoding/json and jq. Anything but white space after
// the value is an error.
func ParseValue(data []byte) (*Value, error) {
	v, err := jsontok.Decode[*Value](data, maxDepth, jqValues{})
	if err != nil {
		return nil, parseError(data, err)
	}
	return v, nil
}

// jqValues builds the Values of ParseValue.
type jqValues struct{}

func (jqValues) String(s string) *Value { return String(s) }

func (jqValues) Number(literal []byte) *Value { return Number(string(literal)) }

func (jqValues) Bool(b bool) *Value { return Bool(b) }

func (jqValues) Null() *Value { return &Value{Kind: KindNull} }

func (jqValues) Array(elems []*Value) *Value {
	arr := &Value{Kind: KindArray}
	if len(elems) > 0 {
		arr.Elems = append(make([]*Value, 0, len(elems)), elems...)
	}
	return arr
}

// Object keeps the first position and the last value of a repeated key.
func (jqValues) Object(keys []string, values []*Value) *Value {
	obj := &Value{Kind: KindObject}
	if len(keys) > 0 {
		obj.Keys, obj.Vals = make([]string, 0, len(keys)), make([]*Value, 0, len(keys))
	}
	for i, k := range keys {
		obj.Set(k, values[i])
	}
	return obj
}

var errEOF = errors.New("unexpected end of JSON input")

// parseError words a syntax error of the tokenizer as registry does: the
// character, without encoding/json's context, at its line and column; a
// bad escape as the string it is in.
func parseError(data []byte, err error) error {
	var se *jsontok.SyntaxError
	if !errors.As(err, &se) {
		return &ParseError{Line: 1, Err: err}
	}
	off := se.Offset
	switch se.Cause {
	case jsontok.UnexpectedEnd:
		err = errEOF
	case jsontok.AfterValue:
		err = errors.New("unexpected data after the JSON value")
	case jsontok.TooDeep:
		err = errors.New("JSON nested too deeply")
	case jsontok.BadStringByte:
		err = fmt.Errorf("invalid character %q in string literal", se.Byte)
	case jsontok.BadEscape:
		off = se.StringStart
		err = fmt.Errorf("invalid string: %w", se)
	default:
		err = fmt.Errorf("invalid character %q", se.Byte)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - (bytes.LastIndexByte(data[:off], '\n') + 1)
	return &ParseError{Line: line, Column: col, Err: err}
}
