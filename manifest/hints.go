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

// nameRegexps are the pattern of a tool name (without the blanks around
// it that the schema allows), what it does not allow, and separators in a
// row, compiled at first use: package init stays cheap.
var nameRegexps = sync.OnceValue(func() [3]*regexp.Regexp {
	return [3]*regexp.Regexp{
		regexp.MustCompile(`^[a-z0-9]+(?:[._-][a-z0-9]+)*$`), // the rule
		regexp.MustCompile(`[^a-z0-9._-]+`),                  // what it does not allow
		regexp.MustCompile(`[._-]{2,}`),                      // separators in a row
	}
})

// hintToolName says the naming rule, with the name made to fit it.
func (v *validator) hintToolName(name string) {
	re := nameRegexps()
	fixed := strings.Trim(re[1].ReplaceAllString(strings.ToLower(name), "-"), "._-")
	fixed = re[2].ReplaceAllStringFunc(fixed, func(s string) string { return s[:1] })
	h := "a tool name is lowercase letters and digits, in words joined by one \".\", \"_\" or \"-\""
	if re[0].MatchString(fixed) {
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

// keyNode is what the schema says about the keys of an object: the
// names it knows, the node of each known key, and the node of the items
// of an array under a key.
type keyNode struct {
	known []string
	props map[string]*keyNode
	items *keyNode
}

// keyTree is the schema's tree of keys, built at first use; the root
// also knows npm's fields.
var keyTree = sync.OnceValue(func() *keyNode {
	var m map[string]any
	_ = json.Unmarshal(SchemaJSON, &m)
	root := newKeyNode(m)
	root.known = append(root.known, npmFields...)
	slices.Sort(root.known)
	root.known = slices.Compact(root.known)
	return root
})

func newKeyNode(schema map[string]any) *keyNode {
	n := &keyNode{}
	if items, ok := schema["items"].(map[string]any); ok {
		n.items = newKeyNode(items)
	}
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		return n
	}
	n.props = map[string]*keyNode{}
	for k, sub := range props {
		n.known = append(n.known, k)
		if m, ok := sub.(map[string]any); ok {
			n.props[k] = newKeyNode(m)
		}
	}
	slices.Sort(n.known)
	return n
}

// unknownKeys warns about each key, at any depth the schema describes,
// that the apps do not read and that is close to one they do: a
// misspelling ("descripton", "spiritextension") is otherwise silently
// ignored. Keys far from every known one are left alone, as npm leaves
// them. Tool schemas (inputSchema, outputSchema) are JSON Schemas of
// their own and are not walked.
func (v *validator) unknownKeys(doc any) {
	if root, ok := doc.(map[string]any); ok {
		v.walkKeys(root, keyTree(), "")
	}
}

func (v *validator) walkKeys(obj map[string]any, node *keyNode, ptr string) {
	if node.props == nil {
		return
	}
	// In key order, so the warnings come in the same order every time.
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var unknown []string
	for _, k := range keys {
		x := obj[k]
		sub, isKnown := node.props[k]
		if !isKnown {
			if !slices.Contains(node.known, k) {
				unknown = append(unknown, k)
			}
			continue
		}
		switch x := x.(type) {
		case map[string]any:
			v.walkKeys(x, sub, ptr+"/"+escapeToken(k))
		case []any:
			if sub.items == nil || sub.items.props == nil {
				continue
			}
			for i, it := range x {
				if o, ok := it.(map[string]any); ok {
					v.walkKeys(o, sub.items, fmt.Sprintf("%s/%s/%d", ptr, escapeToken(k), i))
				}
			}
		}
	}
	for _, k := range unknown {
		if close := suggest.Near(k, node.known, 2); len(close) > 0 {
			v.warnf(ptr+"/"+escapeToken(k), "The key %s is not a field of %s; it is ignored.", k, objectName(ptr))
			v.hintLast("did you mean %s?", close[0])
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
