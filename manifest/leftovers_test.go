package manifest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestSchemaOnlyFailureIsReported proves the safety net: a manifest that
// only the schema rejects (here a schema made stricter than the rules,
// as it would be if the two drifted apart) is still invalid, with the
// failure reported at its pointer.
func TestSchemaOnlyFailureIsReported(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(SchemaJSON, &doc); err != nil {
		t.Fatal(err)
	}
	doc["properties"].(map[string]any)["description"].(map[string]any)["maxLength"] = 20
	stricter, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	orig := compiledSchema
	t.Cleanup(func() { compiledSchema = orig })
	compiledSchema = func() (*jsonschema.Schema, error) {
		d, err := jsonschema.UnmarshalJSON(bytes.NewReader(stricter))
		if err != nil {
			return nil, err
		}
		c := jsonschema.NewCompiler()
		c.UseRegexpEngine(schemaRegexp)
		if err := c.AddResource(schemaURL, d); err != nil {
			return nil, err
		}
		return c.Compile(schemaURL)
	}

	if r := Validate([]byte(base), baseFiles, Options{}); !r.Valid() {
		t.Fatalf("the base manifest is invalid under the stricter schema: %+v", r.Problems)
	}
	long := set(t, base, "/description", `"a description longer than twenty characters"`)
	r := Validate([]byte(long), baseFiles, Options{})
	if r.Valid() {
		t.Fatal("a manifest the schema rejects was reported valid")
	}
	var found bool
	for _, p := range r.Problems {
		if p.Pointer == "/description" && p.Severity == SeverityError && p.Message == "Extension field /description has an invalid value." {
			found = true
		}
	}
	if !found {
		t.Fatalf("no problem at /description: %+v", r.Problems)
	}
}
