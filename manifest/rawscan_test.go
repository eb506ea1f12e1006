package manifest

import (
	"bytes"
	"encoding/json"
	"testing"
)

// checkRawScan compares rawMember and rawElements with encoding/json on
// data: the same bytes for every key of an object (the last of repeated
// keys) and every element of an array, whatever the spacing and escapes.
func checkRawScan(t *testing.T, data []byte) {
	t.Helper()
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) == nil && obj != nil {
		for k, want := range obj {
			if got := rawMember(data, k); !bytes.Equal(got, want) {
				t.Fatalf("rawMember(%q, %q) = %q, want %q", data, k, got, want)
			}
		}
		if got := rawMember(data, "\x00absent"); got != nil {
			t.Fatalf("rawMember(%q, absent key) = %q", data, got)
		}
	}
	var arr []json.RawMessage
	if json.Unmarshal(data, &arr) == nil && arr != nil {
		got := rawElements(data)
		if len(got) != len(arr) {
			t.Fatalf("rawElements(%q) = %d elements, want %d", data, len(got), len(arr))
		}
		for i := range arr {
			if !bytes.Equal(got[i], arr[i]) {
				t.Fatalf("rawElements(%q)[%d] = %q, want %q", data, i, got[i], arr[i])
			}
		}
	}
}

func TestRawScan(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, ` { "a" : 1 , "b":[1,{"c":"}"}] ,"a":"x\"y" } `,
		`{"a\u0062":true,"ab":false}`, `{"k":"\\\\","l":"\\"}`,
		`[1, "two", {"3":[4]}, null, -5.5e-3, "\u00e9\"]"]`,
		`{"a":{"a":{"a":1}},"a":[{"a":2}]}`, `{"\ud800":1}`,
		"{\n\t\"x\"\r: [ ]\n}",
	} {
		checkRawScan(t, []byte(doc))
	}
	for _, garbage := range []string{`{"a"`, `{"a":`, `{"a":1,`, `[1,`, `["`, `{"a\`, `[{]`, `{:1}`, `"`, ``, `{"a":"\`} {
		rawMember([]byte(garbage), "a") // must not panic
		rawElements([]byte(garbage))
	}
}

// FuzzRawScan checks the same on arbitrary bytes, and that garbage never
// makes them panic.
func FuzzRawScan(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[1,{"c":"}"}],"a":"x\"y"}`))
	f.Add([]byte(`[1,"two",{"3":[4]},null]`))
	f.Add([]byte(`{"a\u0062":true}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRawScan(t, data)
		rawMember(data, "a")
		rawElements(data)
	})
}
