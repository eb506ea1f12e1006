package manifest

import "testing"

// TestToolSchemaBytes: a tool's schemas are the bytes
// JSON.stringify(JSON.parse(package.json)) gives for them in the apps:
// the author's key order (integer-like keys first, as in a JavaScript
// object), JavaScript numbers, a repeated key's last value.
func TestToolSchemaBytes(t *testing.T) {
	doc := `{"name": "x", "version": "1.0.0", "main": "index.js", "spiritExtension": {"displayName": "X",
	  "requestedCapabilities": ["tool-definitions", "tool-execution"],
	  "contributes": {"tools": [{"name": "t", "description": "d",
	    "inputSchema": {"type": "object", "properties": {"zeta": {"type": "number", "minimum": 1.5, "maximum": 1000, "multipleOf": 1e-7}, "alpha": {}, "10": {}, "2": {}}, "required": ["zeta"], "type": "object"},
	    "outputSchema": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "maximum": 1E3}}}}]}}}`
	r := Validate([]byte(doc), nil, Options{})
	if r.Manifest == nil || len(r.Manifest.Tools()) != 1 {
		t.Fatalf("no tool: %v", r.Problems)
	}
	tool := r.Manifest.Tools()[0]
	if got, want := string(tool.InputSchema), `{"type":"object","properties":{"2":{},"10":{},"zeta":{"type":"number","minimum":1.5,"maximum":1000,"multipleOf":1e-7},"alpha":{}},"required":["zeta"]}`; got != want {
		t.Errorf("inputSchema\n got %s\nwant %s", got, want)
	}
	if got, want := string(tool.OutputSchema), `{"type":"object","required":["n"],"properties":{"n":{"type":"integer","maximum":1000}}}`; got != want {
		t.Errorf("outputSchema\n got %s\nwant %s", got, want)
	}
}
