package manifest

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/spiritagents/spirit/internal/jsontok"
)

// decodeJSON parses one JSON document into the values the schema validator
// works on: map[string]any (a repeated key keeps its last value), []any,
// string, json.Number, bool and nil, as encoding/json decodes them. It
// refuses what encoding/json would let through: invalid UTF-8 (which it
// would replace), nesting deeper than MaxDepth (which it would follow to
// its own limit of 10,000) and anything after the document. Errors word
// the problem as encoding/json does and carry the byte offset they are
// about; FuzzDecodeJSON holds both to encoding/json.
func decodeJSON(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, &jsonError{msg: "the file is not UTF-8 text", offset: -1}
	}
	v, err := jsontok.Decode[any](data, MaxDepth, jsontok.GoValues{})
	var se *jsontok.SyntaxError
	switch {
	case err == nil:
		return v, nil
	case !errors.As(err, &se):
		return nil, &jsonError{msg: err.Error(), offset: -1}
	case se.Cause == jsontok.AfterValue:
		return nil, &jsonError{msg: fmt.Sprintf("invalid character %s after top-level value", quoteChar(se.Byte)), offset: se.Offset}
	}
	return nil, &jsonError{msg: se.Error(), offset: se.Offset}
}

// jsonError says what is wrong and at which byte offset (-1: none).
type jsonError struct {
	msg    string
	offset int
}

func (e *jsonError) Error() string { return e.msg }

// quoteChar quotes c for a message; a byte from 0x80 (the start of a
// character after the document) as \x.
func quoteChar(c byte) string {
	if c < utf8.RuneSelf {
		return jsontok.QuoteByte(c)
	}
	s := strconv.Quote(string([]byte{c}))
	return "'" + s[1:len(s)-1] + "'"
}
