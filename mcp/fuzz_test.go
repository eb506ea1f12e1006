package mcp

import (
	"encoding/json"
	"errors"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spiritagents/spirit/exthost"
)

// FuzzToolDefinition feeds arbitrary inputSchema and outputSchema bytes, as
// an installed manifest may hold, to toolDefinition and addTool: a tool is
// refused with an *InvalidSchemaError or served, and nothing panics (the
// SDK's AddTool panics on definitions it refuses).
func FuzzToolDefinition(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"type":"object"}`, ``},
		{`{"properties":{"a":{"type":"string"}}}`, `{"type":"object"}`},
		{`{"type":"array"}`, `{"type":"array"}`},
		{`null`, `null`},
		{`[]`, `"x"`},
		{`{"type":["object","null"]}`, `{"type":"object","properties":{"n":{"type":"integer"}}}`},
		{``, `{`},
		{`{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"X-A"}}}`, ``},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	f.Fuzz(func(t *testing.T, in, out []byte) {
		tool := exthost.Tool{Name: "extension__a__b__12345678", ToolName: "b", ExtensionName: "A",
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out)}
		def, err := toolDefinition(tool)
		if err != nil {
			return
		}
		if _, err := json.Marshal(def); err != nil {
			t.Fatalf("definition does not marshal: %v", err)
		}
		s := &Server{srv: sdk.NewServer(&sdk.Implementation{Name: "fuzz"}, nil)}
		var ise *InvalidSchemaError
		if err := s.addTool(def); err != nil && !errors.As(err, &ise) {
			t.Fatalf("addTool: %v", err)
		}
	})
}
