package jsontok

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// reference reads data with encoding/json's decoder, and refuses data
// after the value with the message and offset of encoding/json's scanner.
// It returns the value, or the error message and the offset of the byte
// it is about.
func reference(data []byte) (v any, msg string, offset int) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil, "unexpected end of JSON input", len(data)
		case errors.As(err, &se):
			return nil, se.Error(), int(se.Offset) - 1 // Offset counts the bad byte
		}
		return nil, err.Error(), -1
	}
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		var se *json.SyntaxError
		if err := json.Unmarshal(data, new(any)); errors.As(err, &se) {
			return nil, se.Error(), int(se.Offset) - 1
		}
		return nil, "json.Unmarshal accepted data after the value", -1
	}
	return v, "", 0
}

// check holds Decode and the scanner to encoding/json on data.
func check(t *testing.T, data []byte) {
	t.Helper()
	want, wantMsg, wantOffset := reference(data)
	got, err := Decode[any](data, 10000, GoValues{})
	if wantMsg == "" {
		if err != nil {
			t.Fatalf("Decode(%q): %v; encoding/json accepts it", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q)\n got %#v\nwant %#v", data, got, want)
		}
	} else {
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("Decode(%q) = %#v, %v; encoding/json: %s at %d", data, got, err, wantMsg, wantOffset)
		}
		if se.Error() != wantMsg || se.Offset != wantOffset {
			t.Fatalf("Decode(%q): %s at %d; encoding/json: %s at %d", data, se, se.Offset, wantMsg, wantOffset)
		}
		if se.Cause != UnexpectedEnd && data[se.Offset] != se.Byte {
			t.Fatalf("Decode(%q): Byte %q is not the one at %d", data, se.Byte, se.Offset)
		}
	}
	// Token by token: the same end, strings as encoding/json unquotes
	// them, and Skip at a container's start ends where its value ends.
	s := NewScanner(data, 10000)
	for {
		tok, terr := s.Next()
		if terr != nil || tok.Kind == End {
			if !errors.Is(terr, err) && (terr == nil) != (err == nil) {
				t.Fatalf("Next(%q) ends with %v, Decode with %v", data, terr, err)
			}
			break
		}
		raw := s.Bytes(tok)
		switch tok.Kind {
		case String, Name:
			var str string
			if err := json.Unmarshal(raw, &str); err != nil || str != s.Text(tok) || !s.TextIs(tok, str) || s.TextIs(tok, str+"x") {
				t.Fatalf("Text(%q) = %q, encoding/json %q (%v)", raw, s.Text(tok), str, err)
			}
		case BeginObject, BeginArray:
			if tok.Start%3 != 0 { // skip some, walk the others
				continue
			}
			end, serr := s.Skip(tok)
			if serr == nil && !json.Valid(data[tok.Start:end]) {
				t.Fatalf("Skip in %q at %d: %q is not one value", data, tok.Start, data[tok.Start:end])
			}
		}
	}
}

func TestDecodeAgreesWithEncodingJSON(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, `""`, `0`, `-0`, `1e400`, `-1.5E+3`, `true`, `false`, `null`,
		` {"b":1, "a":[1,2,{"c":"d"}], "10":"x", "b":3} `,
		`{"a\u0062":"\ud800","\u00e9":"\"\\\/\b\f\n\r\t"}`, `"\ud800\u0041"`, `"\udc00\ud800"`,
		`"\ud83d\ude00"`, `"\ud83d\ud83d\ude00"`, "\"\xff\xed\xa0\x80é\"", `"\u00E9\u00e9"`,
		// errors, one of each context of encoding/json's scanner
		``, ` `, `{`, `[`, `{"a"`, `{"a":`, `{"a":1`, `[1`, `"abc`, `"\`, `"\u12`, `-`, `1.`, `1e`, `1e+`, `tru`, `nu`,
		`x`, `{"a" 1}`, `{"a":1 "b"}`, `{,}`, `{"a":1,}`, `[1 2]`, `[1,]`, `[,1]`, "\"a\x01\"", `"\x"`, `"\u12g4"`,
		`-a`, `01`, `[01]`, `1.a`, `1ea`, `1e+a`, `trUe`, `fals3`, `nul1`, `{"a":1}x`, `1 2`, `"a" "b"`, `[]]`,
		`{"a":1}}`, "\xef\xbb\xbf{}", `{"a":'x'}`, "[\"\\\"\x00\"]", `{"\u0000":1}`, `[1,{"a":[true,null,{"b":-0.5e-7}]}]`,
		"{\n\t\"x\"\r: [ ]\n}", `[1,2,3] ,`, `é`, `{"a":é}`, `["a",é]`,
	} {
		check(t, []byte(doc))
	}
}

func TestDepth(t *testing.T) {
	for _, max := range []int{1, 64, 65, 512, 600} {
		ok := strings.Repeat("[", max) + strings.Repeat("]", max)
		if _, err := Decode[any]([]byte(ok), max, GoValues{}); err != nil {
			t.Errorf("depth %d, limit %d: %v", max, max, err)
		}
		deep := strings.Repeat(`{"a":[`, max) + "1" + strings.Repeat("]}", max)
		_, err := Decode[any]([]byte(deep), max, GoValues{})
		brackets := 0
		passing := strings.IndexFunc(deep, func(r rune) bool {
			if r == '{' || r == '[' {
				brackets++
			}
			return brackets > max
		})
		var se *SyntaxError
		if !errors.As(err, &se) || se.Cause != TooDeep || se.Offset != passing {
			t.Errorf("depth %d, limit %d: %v at %+v, want offset %d", 2*max, max, err, se, passing)
		}
	}
	// the bracket that passes the limit is the error's byte
	_, err := Decode[any]([]byte(`[[[[]]]]`), 3, GoValues{})
	if se := (*SyntaxError)(nil); !errors.As(err, &se) || se.Offset != 3 || se.Error() != "nesting is deeper than 3 levels" {
		t.Errorf("got %v", err)
	}
}

// TestErrorCauses: the Cause, and the string a string error is in, for
// readers that word errors their own way.
func TestErrorCauses(t *testing.T) {
	tests := []struct {
		name, in string
		cause    Cause
		offset   int
		start    int
	}{
		{"end", `{"a":[1`, UnexpectedEnd, 7, 0},
		{"byte", `{"a" 1}`, BadByte, 5, 0},
		{"control", "[\"ab\x01\"]", BadStringByte, 4, 1},
		{"escape", `["ab\q"]`, BadEscape, 5, 1},
		{"unicode escape", `[1, "\u00g0"]`, BadEscape, 9, 4},
		{"after", `{} {}`, AfterValue, 3, 0},
		{"deep", `[[[[1]]]]`, TooDeep, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode[any]([]byte(tt.in), 3, GoValues{})
			var se *SyntaxError
			if !errors.As(err, &se) || se.Cause != tt.cause || se.Offset != tt.offset || se.StringStart != tt.start {
				t.Errorf("got %v: %+v", err, se)
			}
		})
	}
}

// TestTokens: the kinds and the bytes of each token.
func TestTokens(t *testing.T) {
	data := []byte(` {"a" : [1.5e3, "x\"", true], "b":{}, "c":null,"d":false} `)
	want := []string{`{`, `"a"`, `[`, `1.5e3`, `"x\""`, `true`, `]`, `"b"`, `{`, `}`, `"c"`, `null`, `"d"`, `false`, `}`, ``}
	kinds := []Kind{BeginObject, Name, BeginArray, Number, String, True, EndArray, Name, BeginObject, EndObject, Name, Null, Name, False, EndObject, End}
	s := NewScanner(data, 10)
	for i := range want {
		tok, err := s.Next()
		if err != nil || tok.Kind != kinds[i] || string(s.Bytes(tok)) != want[i] {
			t.Fatalf("token %d: %+v %q, %v; want %v %q", i, tok, s.Bytes(tok), err, kinds[i], want[i])
		}
	}
	if tok, err := s.Next(); err != nil || tok.Kind != End {
		t.Errorf("after End: %+v, %v", tok, err)
	}
}

func TestSkip(t *testing.T) {
	data := []byte(`{"a":[1,{"b":[]}],"c":"]"}`)
	s := NewScanner(data, 10)
	s.Next() // {
	s.Next() // "a"
	tok, _ := s.Next()
	end, err := s.Skip(tok)
	if err != nil || string(data[tok.Start:end]) != `[1,{"b":[]}]` {
		t.Fatalf("Skip: %q, %v", data[tok.Start:end], err)
	}
	if tok, _ := s.Next(); s.Text(tok) != "c" {
		t.Errorf("after Skip: %q", s.Bytes(tok))
	}
}

// FuzzDecode holds Decode, the scanner and Text to encoding/json on any
// bytes: the same values, the same error messages at the same offsets.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,-0.5e+3,"\u00e9\ud83d\ude00"],"b":{},"a":null}`, `"\ud800x"`, "\"\xff\"", `[1,]`, `{"a" 1}`, `tru`, `"\u12`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 9000 { // encoding/json stops at 10,000 levels, with its own message
			return
		}
		check(t, data)
	})
}
