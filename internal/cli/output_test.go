package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
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

// remove --json prints what was removed, never the human line.
func TestRemoveJSON(t *testing.T) {
	env := map[string]string{"SPIRIT_AGENT_DATA_DIR": t.TempDir()}
	run := func(args ...string) (int, string) {
		ios, _, out, _ := iostreams.Test()
		f := &Factory{IO: ios, Getenv: func(k string) string { return env[k] }, Now: time.Now, HTTPClient: func() *http.Client { return &http.Client{} }}
		return Run(t.Context(), f, args), out.String()
	}
	if code, _ := run("extension", "install", filepath.Join("..", "..", "testdata", "runtime", "kitchen")); code != 0 {
		t.Fatal("install failed")
	}
	code, out := run("--json", "extension", "remove", "@fixture/kitchen")
	if want := "{\n  \"id\": \"@fixture/kitchen\",\n  \"version\": \"1.0.0\",\n  \"purged\": false\n}\n"; code != 0 || out != want {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}
