// Package jsjson reads and writes JSON the way JavaScript's JSON.parse and
// JSON.stringify do, for the bytes spirit shares with the Spirit Agent apps
// (settings files, records, tool schemas):
//
//   - Strings escape only what JSON.stringify escapes: '"', '\\', the
//     control characters below U+0020 (\b \f \n \r \t by name, the others as
//     \u00xx). < > & and U+2028/U+2029 are written as they are.
//   - Numbers are IEEE doubles written as Number.prototype.toString writes
//     them; -0 is written 0, and a value out of range (Infinity, NaN) null.
//   - Objects keep JavaScript's property order: integer-like keys ("0",
//     "10", below 2^32-1) first in ascending numeric order, then the other
//     keys in insertion order. A repeated key keeps its first position and
//     its last value.
//
// The encoder writes every byte itself; nothing is patched afterwards.
package jsjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/spiritagents/spirit/internal/jsontok"
)

// MaxDepth is the deepest nesting Parse accepts.
const MaxDepth = 512

// Member is one property of an Object.
type Member struct {
	Key   string
	Value any
}

// Object is a JavaScript object: its members in property order.
type Object []Member

// Get returns the value of key.
func (o Object) Get(key string) (any, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// Set gives key the value v, keeping the property order of JavaScript: an
// existing key keeps its place, a new integer-like key goes before the
// other keys in numeric order, any other new key goes last.
func (o Object) Set(key string, v any) Object {
	for i := range o {
		if o[i].Key == key {
			o[i].Value = v
			return o
		}
	}
	n, isIndex := arrayIndex(key)
	if !isIndex {
		return append(o, Member{key, v})
	}
	at := len(o)
	for i, m := range o {
		if mn, ok := arrayIndex(m.Key); !ok || mn > n {
			at = i
			break
		}
	}
	return slices.Insert(o, at, Member{key, v})
}

// MarshalJSON encodes o with its members in order, so an Object can sit in
// a value that encoding/json writes.
func (o Object) MarshalJSON() ([]byte, error) { return Marshal(o) }

// Keys returns the keys of o in property order.
func (o Object) Keys() []string {
	keys := make([]string, len(o))
	for i, m := range o {
		keys[i] = m.Key
	}
	return keys
}

// arrayIndex reports whether key is an array index as ECMAScript orders
// property keys: the canonical decimal form of an integer below 2^32-1.
func arrayIndex(key string) (uint64, bool) {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(key, 10, 64)
	if err != nil || n >= math.MaxUint32 {
		return 0, false
	}
	return n, true
}

// SortKeys returns keys in the order a JavaScript object created by adding
// them one by one would list them.
func SortKeys(keys []string) []string {
	var o Object
	for _, k := range keys {
		o = o.Set(k, nil)
	}
	return o.Keys()
}

// SyntaxError says data is not one JSON value.
type SyntaxError struct {
	Err error
}

func (e *SyntaxError) Error() string { return "invalid JSON: " + e.Err.Error() }

func (e *SyntaxError) Unwrap() error { return e.Err }

// Parse reads one JSON value as JSON.parse does. Values are Object, []any,
// string, float64, bool and nil. Strings are unescaped as encoding/json
// unescapes them (invalid UTF-8 and lone surrogates become U+FFFD); numbers
// out of range become infinities, as in JavaScript.
func Parse(data []byte) (any, error) {
	v, err := jsontok.Decode[any](data, MaxDepth, jsValues{})
	if err != nil {
		return nil, &SyntaxError{Err: err}
	}
	return v, nil
}

// jsValues builds the values of Parse.
type jsValues struct{}

func (jsValues) String(s string) any { return s }

func (jsValues) Number(literal []byte) any {
	f, _ := strconv.ParseFloat(string(literal), 64) // the grammar is checked: only ErrRange, with ±Inf or 0
	return f
}

func (jsValues) Bool(b bool) any { return b }

func (jsValues) Null() any { return nil }

func (jsValues) Array(elems []any) any { return append(make([]any, 0, len(elems)), elems...) }

// Object keeps the first position and the last value of a repeated key.
func (jsValues) Object(keys []string, values []any) any {
	o := make(Object, 0, len(keys))
	for i, k := range keys {
		o = o.Set(k, values[i])
	}
	return o
}

// Marshal encodes v compactly, as JSON.stringify(v) would. v may be a value
// Parse returns, or any value encoding/json can encode: those are encoded
// by encoding/json first and then read back with Parse, so their objects
// get JavaScript's property order too.
func Marshal(v any) ([]byte, error) {
	return appendValue(nil, v, 0)
}

// Canonical returns the bytes JSON.stringify(JSON.parse(data)) gives: what
// the apps send on when they pass a JSON value along.
func Canonical(data []byte) ([]byte, error) {
	v, err := Parse(data)
	if err != nil {
		return nil, err
	}
	return Marshal(v)
}

func appendValue(b []byte, v any, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("nesting is deeper than %d levels", MaxDepth)
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return AppendString(b, x), nil
	case float64:
		return AppendNumber(b, x), nil
	case Object:
		b = append(b, '{')
		for i, m := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, m.Key)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, m.Value, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	parsed, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	return appendValue(b, parsed, depth)
}

// AppendNumber appends f as JSON.stringify writes a number:
// Number.prototype.toString for finite values (exponent form below 1e-6
// and from 1e21), 0 for -0, null for Infinity and NaN.
func AppendNumber(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, "null"...)
	}
	if f == 0 {
		return append(b, '0')
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Go writes e-07 and e+07; JavaScript writes e-7 and e+7.
		e := bytes.LastIndexByte(b[start:], 'e') + start
		digits := e + 2
		for digits < len(b)-1 && b[digits] == '0' {
			b = append(b[:digits], b[digits+1:]...)
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string the way JSON.stringify writes
// it. Bytes that are not UTF-8 are written as U+FFFD, as a JavaScript
// string decoded from them would hold.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b = append(b, '\\', '"')
			case c == '\\':
				b = append(b, '\\', '\\')
			case c >= 0x20:
				b = append(b, c)
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
