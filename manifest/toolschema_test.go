package manifest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/spiritagents/spirit/internal/jsjson"
)

// wholeDocumentToolSchema is how a tool schema was read before toolField:
// the whole package.json parsed with JavaScript's rules, then walked. The
// bytes toolSchema returns must not differ from it.
func wholeDocumentToolSchema(data []byte, i int, field string) json.RawMessage {
	x, _ := jsjson.Parse(data)
	for _, key := range []string{"spiritExtension", "contributes", "tools", "", field} {
		switch o := x.(type) {
		case jsjson.Object:
			x, _ = o.Get(key)
		case []any:
			if key == "" && i < len(o) {
				x = o[i]
				continue
			}
			x = nil
		default:
			x = nil
		}
	}
	if x == nil {
		return nil
	}
	b, err := jsjson.Marshal(x)
	if err != nil {
		return nil
	}
	return b
}

// checkToolSchemas compares, for every tool of data, the schemas Validate
// reports with the whole-document reading.
func checkToolSchemas(t *testing.T, data []byte) {
	t.Helper()
	r := Validate(data, nil, Options{Trusted: true})
	if r.Manifest == nil || r.Manifest.Contributes == nil {
		return
	}
	// The manifest's tools are the items of the array that are objects, or
	// arrays (which the reference, and normalizeRecords, take for objects).
	var index []int
	if doc, err := jsjson.Parse(data); err == nil {
		x := any(doc)
		for _, key := range []string{"spiritExtension", "contributes", "tools"} {
			o, _ := x.(jsjson.Object)
			x, _ = o.Get(key)
		}
		items, _ := x.([]any)
		for i, it := range items {
			switch it.(type) {
			case jsjson.Object, []any:
				index = append(index, i)
			}
		}
	}
	for n, tool := range r.Manifest.Contributes.Tools {
		if n >= len(index) {
			t.Fatalf("tool %d of the manifest has no object item in package.json", n)
		}
		i := index[n]
		for _, c := range []struct {
			field string
			got   json.RawMessage
		}{{"inputSchema", tool.InputSchema}, {"outputSchema", tool.OutputSchema}} {
			want := wholeDocumentToolSchema(data, i, c.field)
			if want == nil {
				continue // the value came from the decoded map, as before
			}
			if !bytes.Equal(c.got, want) {
				t.Fatalf("tool %d %s:\n got %s\nwant %s", i, c.field, c.got, want)
			}
		}
	}
}

// TestToolSchemaFieldOnly: reading only a tool's field gives the bytes the
// whole-document parse gave, for the shapes where the two could part:
// repeated keys at every level, escaped keys, keys that differ only in
// case, integer-like keys, JavaScript numbers, null and non-object items.
func TestToolSchemaFieldOnly(t *testing.T) {
	head := `{"name":"x","version":"1.0.0","spiritExtension":{"displayName":"X","contributes":{"tools":`
	for _, tc := range []struct{ name, tools string }{
		{"plain", `[{"name":"t","description":"d","inputSchema":{"type":"object","b":1,"a":2}}]`},
		{"repeated field", `[{"name":"t","description":"d","inputSchema":{"type":"object","x":1},"inputSchema":{"type":"object","y":2}}]`},
		{"repeated key inside", `[{"name":"t","description":"d","inputSchema":{"type":"object","a":1,"b":2,"a":3}}]`},
		{"escaped key", `[{"name":"t","description":"d","input\u0053chema":{"type":"object","z":1}}]`},
		{"case-different key", `[{"name":"t","description":"d","InputSchema":{"type":"string"},"inputSchema":{"type":"object"}}]`},
		{"integer keys", `[{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"b":{},"10":{},"2":{},"01":{}}}}]`},
		{"numbers", `[{"name":"t","description":"d","inputSchema":{"type":"object","m":1.0,"n":1e2,"o":-0,"p":1E-7,"q":123456789012345678901234567890}}]`},
		{"output null", `[{"name":"t","description":"d","inputSchema":{"type":"object"},"outputSchema":null}]`},
		{"second tool", `[{"name":"a","description":"d","inputSchema":{"type":"object"}},{"name":"b","description":"d","inputSchema":{"type":"object","k":[3,2,1]}}]`},
		{"non-object items", `[1,[],{"name":"b","description":"d","inputSchema":{"type":"object","k":true}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkToolSchemas(t, []byte(head+tc.tools+`}}}`))
		})
	}
	for _, doc := range []string{
		`{"spiritExtension":{"contributes":{"tools":[{"inputSchema":{"a":1}}]},"contributes":{"tools":[{"name":"t","description":"d","inputSchema":{"type":"object","b":2}}]}},"name":"x","version":"1"}`,
		`{"spiritExtension":{"displayName":"X","contributes":{"tools":[{"name":"t","description":"d","inputSchema":{"type":"object"}}]}},"spiritExtension":{"displayName":"Y","contributes":{"tools":[{"name":"u","description":"d","inputSchema":{"type":"object","c":3}}]}},"name":"x","version":"1"}`,
	} {
		checkToolSchemas(t, []byte(doc))
	}
}

// FuzzToolSchemaFieldOnly checks the same on arbitrary bytes.
func FuzzToolSchemaFieldOnly(f *testing.F) {
	f.Add([]byte(`{"name":"x","version":"1","spiritExtension":{"displayName":"X","contributes":{"tools":[{"name":"t","description":"d","inputSchema":{"type":"object","b":1,"a":2,"b":3}}]}}}`))
	f.Add([]byte(`{"spiritExtension":{"contributes":{"tools":[{"inputSchema":{"10":1,"2":[1.50,1e3]}}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkToolSchemas(t, data)
	})
}
