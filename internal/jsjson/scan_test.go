package jsjson

import (
	"reflect"
	"strings"
	"testing"
)

// checkParsers: Parse (the one-pass reading of valid JSON) and parseTokens
// (json.Decoder.Token) agree on every input: the same value, or both an
// error.
func checkParsers(t *testing.T, data []byte) {
	t.Helper()
	got, gerr := Parse(data)
	want, werr := parseTokens(data)
	if (gerr != nil) != (werr != nil) {
		t.Fatalf("Parse(%q) error %v, parseTokens error %v", data, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse(%q)\n got %#v\nwant %#v", data, got, want)
	}
}

func TestParseValid(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, `""`, `0`, `-0`, `1e400`, `-1e-400`, `true`, `null`,
		` {"b":1, "a":[1,2,{"c":"d"}], "10":"x", "2":"y", "b":3} `,
		`{"a\u0062":"\ud800","\u00e9":"\"\\\/\b\f\n\r\t"}`,
		`["\u2028", "héllo", 123456789012345678901234567890, 1.5E+3]`,
		`{"__proto__":{"x":1}}`,
		strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
		strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1),
		"\"\xff\"", `{"a":1}x`, `{"a" 1}`, `[1,]`, ``, ` `,
	} {
		checkParsers(t, []byte(doc))
	}
}

// FuzzParseValid checks the same on arbitrary bytes.
func FuzzParseValid(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2,"10":[true,null]}`, `"\ud83d\ude00"`, `[1e400,-0]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParsers(t, data)
	})
}
