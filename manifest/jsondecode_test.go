package manifest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var jsonSamples = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e-3`, `-12E+4`, `"a"`, `"\u00e9\ud83d\ude00\n\t\"\\\/"`,
	`"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, `{"a":1,"a":2}`, `[1,[2,[3]]]`, ` { "k" : [ true , null ] } `,
	`{"a":}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `01`, `1.`, `.5`, `-`, `1e`, `tru`, `nul`, `"abc`, `"\x"`,
	`"\u12"`, `{} {}`, `"` + "\x01" + `"`, `{"a":1}x`, ``, ` `, `[`, `{`, `{"`, `{"a"`, `{"a":`, base,
}

func TestDecodeJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range jsonSamples {
		checkDecode(t, []byte(s))
	}
}

func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	got, err := decodeJSON(data)
	want, wantErr := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%q: decodeJSON err %v, encoding/json err %v", data, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decodeJSON %#v, encoding/json %#v", data, got, want)
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range jsonSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// encoding/json replaces invalid UTF-8 and nests without limit; decodeJSON refuses both.
		if !utf8.Valid(data) || strings.Count(string(data), "[")+strings.Count(string(data), "{") > MaxDepth {
			if _, err := decodeJSON(data); err == nil && !utf8.Valid(data) {
				t.Fatalf("%q: invalid UTF-8 accepted", data)
			}
			return
		}
		checkDecode(t, data)
	})
}

func TestDecodeJSONDepth(t *testing.T) {
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, err := decodeJSON([]byte(ok)); err != nil {
		t.Errorf("depth %d: %v", MaxDepth, err)
	}
	deep := "[" + ok + "]"
	if _, err := decodeJSON([]byte(deep)); err == nil || !strings.Contains(err.Error(), "deeper than 64") {
		t.Errorf("depth %d: %v", MaxDepth+1, err)
	}
}

// TestDecodeJSONDepthIgnoresStrings: brackets inside strings, escaped
// quotes included, are not nesting.
func TestDecodeJSONDepthIgnoresStrings(t *testing.T) {
	brackets := strings.Repeat("[{", MaxDepth)
	for _, s := range []string{
		`{"k":"` + brackets + `"}`,
		`["\"` + brackets + `\\", "` + brackets + `"]`,
	} {
		if _, err := decodeJSON([]byte(s)); err != nil {
			t.Errorf("%.40q…: %v", s, err)
		}
	}
}

// TestDecodeJSONErrorOffsets: the offset of an error is the byte it is
// about, for the line and column shown to the user.
func TestDecodeJSONErrorOffsets(t *testing.T) {
	for _, c := range []struct {
		in     string
		offset int
	}{
		{`{"a": ,}`, 6},
		{`{"a":1} x`, 8},
		{`[1,2`, 4},
		{`[[` + strings.Repeat("[", MaxDepth) + `]]]`, MaxDepth},
	} {
		_, err := decodeJSON([]byte(c.in))
		var je *jsonError
		if !errors.As(err, &je) || je.offset != c.offset {
			t.Errorf("%.40q: got %v at %+v, want offset %d", c.in, err, je, c.offset)
		}
	}
}

func BenchmarkDecodeJSON(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "examples", "lookup-tools", "package.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}
