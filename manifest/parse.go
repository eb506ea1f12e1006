package manifest

import (
	"bytes"
	"errors"
	"fmt"
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
	doc, err := decodeJSON(data)
	if err != nil {
		v.addDetail("", SeverityError, notJSON, describeJSONError(data, err))
		return nil, false
	}
	return doc, true
}

// describeJSONError says where the JSON is broken, as line and column.
func describeJSONError(data []byte, err error) string {
	var je *jsonError
	if errors.As(err, &je) && je.offset >= 0 {
		line, col := lineCol(data, int64(je.offset))
		return fmt.Sprintf("line %d, column %d: %s", line, col, je.msg)
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
