package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// decode turns package.json bytes into a JSON value (objects are
// map[string]any, numbers json.Number). Problems with the bytes themselves
// are added to v; ok is false when nothing could be decoded.
func (v *validator) decode(data []byte) (doc any, ok bool) {
	if len(data) > MaxSize {
		v.add("", SeverityError, fmt.Sprintf("The extension package.json is too large: %d bytes, limit %d bytes.", len(data), MaxSize))
		return nil, false
	}
	if bytes.HasPrefix(data, utf8BOM) {
		data = data[len(utf8BOM):]
		v.add("", SeverityWarning, "The extension package.json starts with a UTF-8 byte order mark; Spirit Agent rejects it as not valid JSON. Save the file without a BOM.")
	}
	const notJSON = "The extension package.json is not valid JSON."
	if !utf8.Valid(data) {
		v.addDetail("", SeverityError, notJSON, "the file is not UTF-8 text")
		return nil, false
	}
	if d := maxDepth(data); d > MaxDepth {
		v.addDetail("", SeverityError, notJSON, fmt.Sprintf("nesting is deeper than %d levels", MaxDepth))
		return nil, false
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		v.addDetail("", SeverityError, notJSON, describeJSONError(data, err))
		return nil, false
	}
	return doc, true
}

// maxDepth returns the deepest nesting of arrays and objects in data,
// ignoring brackets inside strings. It stops counting early once past MaxDepth.
func maxDepth(data []byte) int {
	depth, max := 0, 0
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > max {
				max = depth
				if max > MaxDepth {
					return max
				}
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return max
}

// describeJSONError says where the JSON is broken, as line and column.
func describeJSONError(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(data, se.Offset-1)
		return fmt.Sprintf("line %d, column %d: %v", line, col, se)
	}
	return err.Error()
}

func lineCol(data []byte, offset int64) (line, col int) {
	if offset < 0 {
		offset = 0
	}
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	line, col = 1, 1
	for _, c := range data[:offset] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
