package jsjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// checkParsers: Parse (on jsontok) and parseTokens (json.Decoder.Token)
// agree on every input: the same value, or both an error.
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

// parseTokens is the reference Parse is held to: encoding/json's
// json.Decoder.Token, with JavaScript's property order (Object.Set) and
// Parse's depth limit.
func parseTokens(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec, 0)
	if err != nil {
		return nil, &SyntaxError{Err: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the JSON value")
		}
		return nil, &SyntaxError{Err: err}
	}
	return v, nil
}

func parseValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= MaxDepth {
			return nil, fmt.Errorf("nesting is deeper than %d levels", MaxDepth)
		}
		switch t {
		case '{':
			o := Object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				v, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o = o.Set(key, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, err
		}
		return f, nil
	default:
		return t, nil // string, bool or nil
	}
}
