package registry

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

//go:embed schemas/*.schema.json
var schemaFS embed.FS

type schemaName string

const (
	schemaEntry   schemaName = "marketplace-entry"
	schemaDetail  schemaName = "marketplace-detail"
	schemaCatalog schemaName = "marketplace-catalog"
)

// Schemas holds the three official schemas, compiled once.
type Schemas struct {
	compiled map[schemaName]*jsonschema.Schema
}

// CompileSchemas compiles the embedded copies of the official schemas.
func CompileSchemas() (*Schemas, error) {
	c := jsonschema.NewCompiler()
	s := &Schemas{compiled: map[schemaName]*jsonschema.Schema{}}
	names := []schemaName{schemaEntry, schemaDetail, schemaCatalog}
	for _, n := range names {
		data, err := schemaFS.ReadFile("schemas/" + string(n) + ".schema.json")
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", n, err)
		}
		if err := c.AddResource(schemaURL(n), doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", n, err)
		}
	}
	for _, n := range names {
		sch, err := c.Compile(schemaURL(n))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", n, err)
		}
		s.compiled[n] = sch
	}
	return s, nil
}

// schemaURL is where a schema is registered; it matches no $id, so
// nothing is ever fetched.
func schemaURL(n schemaName) string { return "embedded:///schemas/" + string(n) + ".schema.json" }

// checkValue validates the parsed document v against schema n and returns
// one warning per failed leaf rule, sorted by location.
func (s *Schemas) checkValue(n schemaName, file string, v *Value) []Problem {
	err := s.compiled[n].Validate(v.toAny())
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil
	}
	type leaf struct{ loc, msg string }
	var leaves []leaf
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		switch u.Error.Kind.(type) {
		case *kind.Group, *kind.Schema, *kind.Reference:
			continue
		}
		leaves = append(leaves, leaf{u.InstanceLocation, u.Error.String()})
	}
	sort.SliceStable(leaves, func(i, j int) bool { return leaves[i].loc < leaves[j].loc })
	var ps []Problem
	for _, l := range leaves {
		loc := l.loc
		if loc == "" {
			loc = "/"
		}
		ps = append(ps, Problem{File: file, Severity: SeverityWarning,
			Message: fmt.Sprintf("%s does not match schema %s at %s: %s", file, n, loc, l.msg)})
	}
	return ps
}

// toAny converts v to the plain Go form that encoding/json decodes into
// with UseNumber (and that the schema validator takes).
func (v *Value) toAny() any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case KindFalse:
		return false
	case KindTrue:
		return true
	case KindNumber:
		return json.Number(v.Str)
	case KindString:
		return v.Str
	case KindArray:
		out := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			out[i] = e.toAny()
		}
		return out
	case KindObject:
		out := make(map[string]any, len(v.Keys))
		for i, k := range v.Keys {
			out[k] = v.Vals[i].toAny()
		}
		return out
	}
	return nil
}
