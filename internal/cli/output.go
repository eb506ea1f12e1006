package cli

import (
	"encoding/json"
	"io"
	"reflect"
)

// writeJSON prints v as indented JSON with a trailing newline. Struct tags of
// the values printed here are a public contract; a list is never null
// (an empty one is []), so scripts can iterate without a check.
func writeJSON(w io.Writer, v any) error {
	if v != nil {
		// An addressable copy, so the fields of a value can be set too.
		rv := reflect.New(reflect.TypeOf(v))
		rv.Elem().Set(reflect.ValueOf(v))
		fillNilSlices(rv)
		v = rv.Interface()
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// fillNilSlices sets every nil slice reachable through pointers, struct
// fields and slice elements of v to an empty one, where it can be set.
// Map values cannot be set in place and are left as they are; a []byte
// is left alone (JSON writes it as a string).
func fillNilSlices(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			fillNilSlices(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillNilSlices(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		if v.IsNil() {
			if v.CanSet() {
				v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			}
			return
		}
		for i := range v.Len() {
			fillNilSlices(v.Index(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			fillNilSlices(v.Index(i))
		}
	}
}
