package cli

import (
	"bytes"
	"encoding/json"
	"testing"
)

// A list in --json output is [] when empty, never null, at any depth;
// pointers left nil stay null and a json.RawMessage is kept as it is.
func TestWriteJSONNeverNullLists(t *testing.T) {
	type item struct {
		Tags []string `json:"tags"`
	}
	type report struct {
		Warnings []string        `json:"warnings"`
		Items    []item          `json:"items"`
		Nested   *item           `json:"nested"`
		None     *item           `json:"none"`
		Raw      json.RawMessage `json:"raw"`
		Omitted  []string        `json:"omitted,omitempty"`
	}
	var b bytes.Buffer
	if err := writeJSON(&b, &report{Items: []item{{}}, Nested: &item{}, Raw: json.RawMessage(`{"a":1}`)}); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	json.Compact(&compact, b.Bytes())
	want := `{"warnings":[],"items":[{"tags":[]}],"nested":{"tags":[]},"none":null,"raw":{"a":1}}`
	if compact.String() != want {
		t.Errorf("got  %s\nwant %s", compact.String(), want)
	}
	// A value (not a pointer), and a bare nil list.
	b.Reset()
	writeJSON(&b, report{})
	if !bytes.Contains(b.Bytes(), []byte(`"warnings": [],`)) || !bytes.Contains(b.Bytes(), []byte(`"items": [],`)) {
		t.Errorf("value: %s", b.Bytes())
	}
	b.Reset()
	writeJSON(&b, []string(nil))
	if b.String() != "[]\n" {
		t.Errorf("nil list: %q", b.String())
	}
}
