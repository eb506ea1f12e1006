package manifest

import (
	"bytes"
	_ "embed"
	"errors"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// SchemaJSON is the JSON Schema (draft 2020-12) of an extension's
// package.json, published so that editors can check a manifest as it is typed.
//
//go:embed spirit-extension.schema.json
var SchemaJSON []byte

const schemaURL = "https://spiritagents.github.io/spirit/spirit-extension.schema.json"

// nonBlankPattern is the schema's pattern for "not blank after trimming";
// a failure of it means "must not be empty" rather than "invalid".
const nonBlankPattern = "[^\t\n\u000b\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"

var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseRegexpEngine(schemaRegexp)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
})

// failure is how a value broke the schema.
type failure int

const (
	failNone    failure = iota
	failOther           // a keyword no rule knows (the leftovers report it)
	failMinimum         // minItems, const
	failPattern         // a pattern other than "not blank"
	failBlank           // blank string
	failType            // wrong JSON type
	failMissing         // a required key is absent
)

// schemaFailures validates doc against the schema and returns, per JSON
// pointer, the worst way the value there failed.
func schemaFailures(doc any) (map[string]failure, error) {
	sch, err := compiledSchema()
	if err != nil {
		return nil, err
	}
	err = sch.Validate(doc)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	out := map[string]failure{}
	collectFailures(ve, out)
	return out, nil
}

func collectFailures(ve *jsonschema.ValidationError, out map[string]failure) {
	ptr := pointer(ve.InstanceLocation)
	set := func(p string, f failure) {
		if f > out[p] {
			out[p] = f
		}
	}
	switch k := ve.ErrorKind.(type) {
	case *kind.Type:
		set(ptr, failType)
	case *kind.Required:
		for _, m := range k.Missing {
			set(ptr+"/"+escapePointer(m), failMissing)
		}
	case *kind.Pattern:
		if k.Want == nonBlankPattern {
			set(ptr, failBlank)
		} else {
			set(ptr, failPattern)
		}
	case *kind.Const, *kind.MinItems:
		set(ptr, failMinimum)
	default:
		if len(ve.Causes) == 0 {
			set(ptr, failOther)
		}
	}
	for _, c := range ve.Causes {
		collectFailures(c, out)
	}
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
