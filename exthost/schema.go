package exthost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// noLoader refuses every external $ref: schemas are checked offline.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema references are not loaded: %s", url)
}

// compileSchema compiles a tool's inputSchema or outputSchema. raw is the
// schema as the manifest holds it.
func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const url = "spirit:///tool-schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// schemaProblem validates the JSON value v against sch and returns the JSON
// pointer and message of the first failure, or ok.
func schemaProblem(sch *jsonschema.Schema, v []byte) (pointer, msg string, ok bool) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(v))
	if err != nil {
		return "", "not valid JSON: " + err.Error(), false
	}
	err = sch.Validate(inst)
	if err == nil {
		return "", "", true
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "", err.Error(), false
	}
	out := ve.BasicOutput()
	for _, u := range out.Errors {
		if u.Error != nil {
			return u.InstanceLocation, u.Error.String(), false
		}
	}
	if out.Error != nil {
		return out.InstanceLocation, out.Error.String(), false
	}
	return "", ve.Error(), false
}
