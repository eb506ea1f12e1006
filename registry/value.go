package registry

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The kinds, in jq's sort order.
const (
	KindNull Kind = iota
	KindFalse
	KindTrue
	KindNumber
	KindString
	KindArray
	KindObject
)

// Value is a JSON value that keeps what jq keeps: object keys in insertion
// order and number literals as written. A nil *Value stands for an absent
// value and behaves like null.
type Value struct {
	Kind  Kind
	Str   string   // the text of a string, or the literal of a number
	Elems []*Value // array elements
	Keys  []string // object keys, in order
	Vals  []*Value // object values, parallel to Keys
}

// Values made by hand.
var (
	nullValue = &Value{Kind: KindNull}
)

// String returns a string Value.
func String(s string) *Value { return &Value{Kind: KindString, Str: s} }

// Bool returns a boolean Value.
func Bool(b bool) *Value {
	if b {
		return &Value{Kind: KindTrue}
	}
	return &Value{Kind: KindFalse}
}

// Number returns a number Value from its literal.
func Number(lit string) *Value { return &Value{Kind: KindNumber, Str: lit} }

// Object returns an empty object Value.
func Object() *Value { return &Value{Kind: KindObject} }

// Array returns an array Value of elems.
func Array(elems ...*Value) *Value { return &Value{Kind: KindArray, Elems: elems} }

// Set sets key to val, keeping the position of an existing key (as jq does).
func (v *Value) Set(key string, val *Value) *Value {
	for i, k := range v.Keys {
		if k == key {
			v.Vals[i] = val
			return v
		}
	}
	v.Keys = append(v.Keys, key)
	v.Vals = append(v.Vals, val)
	return v
}

// Get returns the value of key and whether the key is there. It is false
// for anything but an object.
func (v *Value) Get(key string) (*Value, bool) {
	if v == nil || v.Kind != KindObject {
		return nil, false
	}
	for i, k := range v.Keys {
		if k == key {
			return v.Vals[i], true
		}
	}
	return nil, false
}

// Has reports whether v is an object with key.
func (v *Value) Has(key string) bool {
	_, ok := v.Get(key)
	return ok
}

// IsNull reports whether v is absent or null.
func (v *Value) IsNull() bool { return v == nil || v.Kind == KindNull }

// falsy reports what jq's `//` treats as missing: absent, null or false.
func (v *Value) falsy() bool { return v == nil || v.Kind == KindNull || v.Kind == KindFalse }

// kindName is jq's name of a kind, used in its error messages.
func (v *Value) kindName() string {
	if v == nil {
		return "null"
	}
	switch v.Kind {
	case KindNull:
		return "null"
	case KindFalse, KindTrue:
		return "boolean"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindArray:
		return "array"
	}
	return "object"
}

// index is jq's `.key`: null gives null, an object its member (or null),
// anything else an error.
func (v *Value) index(key string) (*Value, error) {
	if v.IsNull() {
		return nil, nil
	}
	if v.Kind != KindObject {
		return nil, fmt.Errorf("Cannot index %s with %q", v.kindName(), key)
	}
	val, _ := v.Get(key)
	return val, nil
}

// iterate is jq's `.[]`: the elements of an array or the values of an object.
func (v *Value) iterate() ([]*Value, error) {
	switch {
	case v != nil && v.Kind == KindArray:
		return v.Elems, nil
	case v != nil && v.Kind == KindObject:
		return v.Vals, nil
	}
	return nil, fmt.Errorf("Cannot iterate over %s (%s)", v.kindName(), truncDump(v.compact(), 15))
}

// truncDump is jq's jv_dump_string_trunc with a buffer of size n.
func truncDump(s string, n int) string {
	if len(s) <= n-1 {
		return s
	}
	return s[:n-4] + "..."
}

// ToString is jq's tostring: a string as is, anything else as compact JSON.
func (v *Value) ToString() string {
	if v != nil && v.Kind == KindString {
		return v.Str
	}
	return v.compact()
}

// compact is jq's tojson.
func (v *Value) compact() string {
	var b strings.Builder
	writeValue(&b, v, -1, 0)
	return b.String()
}

// blank is the reference's test `((v // "") | tostring) | test("^\\s*$")`.
func (v *Value) blank() bool {
	if v.falsy() {
		return true
	}
	return isBlank(v.ToString())
}

// isBlank reports whether s is made only of Unicode White_Space.
func isBlank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// float returns the number as jq holds it: a double, infinities clamped.
func (v *Value) float() float64 {
	f, err := strconv.ParseFloat(v.Str, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN()
	}
	if math.IsInf(f, 1) {
		return math.MaxFloat64
	}
	if math.IsInf(f, -1) {
		return -math.MaxFloat64
	}
	return f
}

// Equal is jq's ==: deep, type-sensitive, numbers as doubles, object key
// order ignored.
func Equal(a, b *Value) bool { return Compare(a, b) == 0 }

// Compare is jq's total order: null < false < true < numbers < strings <
// arrays < objects; strings by code point; objects first by their sorted
// key sets, then by values in key order.
func Compare(a, b *Value) int {
	if a == nil {
		a = nullValue
	}
	if b == nil {
		b = nullValue
	}
	if a.Kind != b.Kind {
		if a.Kind < b.Kind {
			return -1
		}
		return 1
	}
	switch a.Kind {
	case KindNumber:
		x, y := a.float(), b.float()
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case KindString:
		return strings.Compare(a.Str, b.Str)
	case KindArray:
		for i := 0; i < len(a.Elems) && i < len(b.Elems); i++ {
			if c := Compare(a.Elems[i], b.Elems[i]); c != 0 {
				return c
			}
		}
		return cmpInt(len(a.Elems), len(b.Elems))
	case KindObject:
		ka, kb := sortedKeys(a), sortedKeys(b)
		for i := 0; i < len(ka) && i < len(kb); i++ {
			if c := strings.Compare(ka[i], kb[i]); c != 0 {
				return c
			}
		}
		if c := cmpInt(len(ka), len(kb)); c != 0 {
			return c
		}
		for _, k := range ka {
			x, _ := a.Get(k)
			y, _ := b.Get(k)
			if c := Compare(x, y); c != 0 {
				return c
			}
		}
	}
	return 0
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sortedKeys(v *Value) []string {
	keys := append([]string(nil), v.Keys...)
	sortStrings(keys)
	return keys
}

// ParseError is a JSON document that does not parse.
type ParseError struct {
	Line, Column int
	Err          error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("parse error: %v at line %d, column %d", e.Err, e.Line, e.Column)
}

// Unwrap returns the underlying decoder error.
func (e *ParseError) Unwrap() error { return e.Err }
