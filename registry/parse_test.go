package registry

import (
	"strings"
	"testing"
)

// TestParseValueErrors pins how ParseValue words each kind of syntax error
// and where it places it (line, and column from 0).
func TestParseValueErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"bad byte", `{"a":1,}`, "invalid character '}' at line 1, column 7"},
		{"after a key", "{\n\"a\" 1}", "invalid character '1' at line 2, column 4"},
		{"end", `{"a":[1`, "unexpected end of JSON input at line 1, column 7"},
		{"control character", "[\"a\x01\"]", `invalid character '\x01' in string literal at line 1, column 3`},
		{"bad escape", "[1,\n \"\\q\"]", `invalid string: invalid character 'q' in string escape code at line 2, column 1`},
		{"after the value", `{} x`, "unexpected data after the JSON value at line 1, column 3"},
		{"too deep", strings.Repeat("[", maxDepth+1), "JSON nested too deeply at line 1, column 512"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseValue([]byte(tt.in))
			if err == nil || err.Error() != "parse error: "+tt.want {
				t.Errorf("got %v, want parse error: %s", err, tt.want)
			}
		})
	}
}
