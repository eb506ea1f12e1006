package manifest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/spiritagents/spirit/internal/suggest"
)

// The hints say how to fix a problem whose message is the apps' exact
// text and says only what is wrong. They go in Problem.Hint, never into
// the message.

// hintLast sets the hint of the problem reported last.
func (v *validator) hintLast(format string, a ...any) {
	if n := len(v.report.Problems); n > 0 {
		v.report.Problems[n-1].Hint = fmt.Sprintf(format, a...)
	}
}

// The values of the enum fields.
var (
	approvalModes  = []string{"allowed", "need-approval", "need-questions"}
	executionModes = []string{"foreground", "background"}
	settingTypes   = []string{"string", "boolean", "number", "select"}
	hostNames      = []string{"cli", "desktop"}
)

// enumValues returns the allowed values of the enum field named by the
// last token of ptr (an item pointer counts as its list).
func enumValues(ptr string) []string {
	t := lastToken(ptr)
	if isIndex(t) {
		t = lastToken(ptr[:strings.LastIndexByte(ptr, '/')])
	}
	switch t {
	case "activationEvents":
		return ActivationEvents
	case "requestedCapabilities":
		return Capabilities
	case "supportedHosts":
		return hostNames
	case "approvalMode":
		return approvalModes
	case "executionMode":
		return executionModes
	case "type":
		return settingTypes
	case "slot":
		return hookSlots
	case "variant":
		return hookVariants
	}
	return nil
}

func isIndex(t string) bool {
	if t == "" {
		return false
	}
	for _, r := range t {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// hintEnum hints the allowed values of the field at ptr, and the one got
// may have meant.
func (v *validator) hintEnum(ptr string, got any) { v.hintValues(enumValues(ptr), got) }

// hintValues hints values, and the one got may have meant.
func (v *validator) hintValues(values []string, got any) {
	if len(values) == 0 {
		return
	}
	h := "allowed values: " + strings.Join(values, ", ")
	if s, ok := got.(string); ok {
		if close := suggest.Near(trim(s), values, 2); len(close) > 0 {
			h = "did you mean " + close[0] + "? " + h
		}
	}
	v.hintLast("%s", h)
}

// toolNameRule is the pattern of a tool name, without the blanks around
// it that the schema allows.
var toolNameRule = regexp.MustCompile(`^[a-z0-9]+(?:[._-][a-z0-9]+)*$`)

var (
	notNameChars  = regexp.MustCompile(`[^a-z0-9._-]+`)
	separatorRuns = regexp.MustCompile(`[._-]{2,}`)
)

// hintToolName says the naming rule, with the name made to fit it.
func (v *validator) hintToolName(name string) {
	fixed := strings.Trim(notNameChars.ReplaceAllString(strings.ToLower(name), "-"), "._-")
	fixed = separatorRuns.ReplaceAllStringFunc(fixed, func(s string) string { return s[:1] })
	h := "a tool name is lowercase letters and digits, in words joined by one \".\", \"_\" or \"-\""
	if toolNameRule.MatchString(fixed) {
		h += fmt.Sprintf(", such as %q", fixed)
	} else {
		h += `, such as "get-weather"`
	}
	v.hintLast("%s", h)
}

// hintMissingBlock hints the spiritExtension key a package.json may have
// misspelled, or says what the block is.
func (v *validator) hintMissingBlock(root map[string]any) {
	keys := make([]string, 0, len(root))
	for k := range root {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if len(suggest.Near(k, []string{"spiritExtension"}, 2)) > 0 {
			v.hintLast("did you mean spiritExtension? package.json has %q", k)
			return
		}
	}
	if _, ok := root["spiritExtension"]; ok {
		v.hintLast("spiritExtension must be an object, not %s", jsonType(root["spiritExtension"]))
		return
	}
	v.hintLast(`this package is not a Spirit extension: an extension's package.json has a "spiritExtension" object (spirit extension create makes one)`)
}

// hintType says the type a field should have and the one it has.
func (v *validator) hintType(ptr string, got any) {
	example := ""
	switch ptr {
	case "/version":
		example = `, such as "1.0.0"`
	case "/name":
		example = `, such as "my-extension"`
	}
	if _, present := got.(string); present || got == nil {
		return // blank or missing: the message says it
	}
	v.hintLast("%s must be a string%s, not %s", objectName(ptr), example, jsonType(got))
}

// jsonType names the JSON type of a decoded value.
func jsonType(x any) string {
	switch x.(type) {
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case string:
		return "a string"
	}
	return "null"
}

// npmFields are the package.json fields npm and Node document: keys a
// package may carry besides the ones the apps read.
var npmFields = []string{"name", "version", "description", "keywords", "homepage", "bugs", "license",
	"author", "contributors", "funding", "files", "main", "browser", "bin", "man", "directories",
	"repository", "scripts", "config", "dependencies", "devDependencies", "peerDependencies",
	"peerDependenciesMeta", "bundleDependencies", "bundledDependencies", "optionalDependencies",
	"overrides", "engines", "os", "cpu", "private", "publishConfig", "workspaces", "type", "exports",
	"imports", "module", "types", "typings", "packageManager", "sideEffects", "icon", "displayName",
	"publisher", "spiritExtension"}

// schemaTree is the schema as plain JSON, to walk its properties.
var schemaTree = sync.OnceValue(func() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(SchemaJSON, &m)
	return m
})

// unknownKeys warns about each key, at any depth the schema describes,
// that the apps do not read and that is close to one they do: a
// misspelling ("descripton", "spiritextension") is otherwise silently
// ignored. Keys far from every known one are left alone, as npm leaves
// them. Tool schemas (inputSchema, outputSchema) are JSON Schemas of
// their own and are not walked.
func (v *validator) unknownKeys(doc any) {
	root, ok := doc.(map[string]any)
	if !ok {
		return
	}
	v.walkKeys(root, schemaTree(), "", npmFields)
}

func (v *validator) walkKeys(obj map[string]any, schema map[string]any, ptr string, extra []string) {
	props, _ := schema["properties"].(map[string]any)
	if props == nil {
		return
	}
	known := slices.Concat(extra)
	for k := range props {
		known = append(known, k)
	}
	slices.Sort(known)
	known = slices.Compact(known)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := ptr + "/" + escapeToken(k)
		sub, isKnown := props[k].(map[string]any)
		if !isKnown {
			if slices.Contains(known, k) {
				continue
			}
			if close := suggest.Near(k, known, 2); len(close) > 0 {
				v.warnf(p, "The key %s is not a field of %s; it is ignored.", k, objectName(ptr))
				v.hintLast("did you mean %s?", close[0])
			}
			continue
		}
		switch x := obj[k].(type) {
		case map[string]any:
			v.walkKeys(x, sub, p, nil)
		case []any:
			items, _ := sub["items"].(map[string]any)
			for i, it := range x {
				if o, ok := it.(map[string]any); ok && items != nil {
					v.walkKeys(o, items, fmt.Sprintf("%s/%d", p, i), nil)
				}
			}
		}
	}
}

// objectName names the object at ptr for a message, as the apps' labels
// do: "package.json", "spiritExtension.contributes.tools[0]".
func objectName(ptr string) string {
	if ptr == "" {
		return "package.json"
	}
	var b strings.Builder
	for i, t := range strings.Split(ptr[1:], "/") {
		t = pointerUnescaper.Replace(t)
		switch {
		case isIndex(t):
			b.WriteString("[" + t + "]")
		case i > 0:
			b.WriteString("." + t)
		default:
			b.WriteString(t)
		}
	}
	return b.String()
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

func escapeToken(k string) string { return pointerEscaper.Replace(k) }
