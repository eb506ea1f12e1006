package manifest

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// base is a valid manifest that each case changes in one place.
const base = `{
  "name": "@example/spirit-extension",
  "version": "1.0.0",
  "main": "index.js",
  "spiritExtension": {
    "displayName": "Example",
    "supportedHosts": ["cli"],
    "requestedCapabilities": ["tool-definitions", "tool-execution"],
    "contributes": {
      "tools": [{"name": "lookup_item", "description": "Look up.", "inputSchema": {"type": "object"}}]
    }
  }
}`

var baseFiles = fstest.MapFS{
	"index.js":       {Data: []byte("export function activate() {}")},
	"icon.png":       {Data: []byte("png")},
	"style.css":      {Data: []byte("a{}")},
	"hooks.json":     {Data: []byte(`{"hooks":[{"slot":"message.user"}]}`)},
	"bad-hooks.json": {Data: []byte(`{"hooks":[1,{"slot":"nope"},{"slot":"input.frame","variant":"loud","tokens":{"accent":"pink"}}]}`)},
	"notjson.json":   {Data: []byte(`{`)},
	"nohooks.json":   {Data: []byte(`{"hooks":{}}`)},
	"dir/x":          {Data: []byte("x")},
}

// set returns base with the value at the slash path replaced (or deleted
// when value is the string "<delete>").
func set(t *testing.T, doc string, path string, value string) string {
	t.Helper()
	var root any
	if err := json.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	cur := root
	for i, p := range parts {
		last := i == len(parts)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if value == "<delete>" {
					delete(c, p)
				} else {
					var v any
					if err := json.Unmarshal([]byte(value), &v); err != nil {
						t.Fatalf("bad value %s: %v", value, err)
					}
					c[p] = v
				}
				break
			}
			cur = c[p]
		case []any:
			var idx int
			if err := json.Unmarshal([]byte(p), &idx); err != nil {
				t.Fatal(err)
			}
			if last {
				var v any
				if err := json.Unmarshal([]byte(value), &v); err != nil {
					t.Fatal(err)
				}
				c[idx] = v
				break
			}
			cur = c[idx]
		default:
			t.Fatalf("cannot walk into %s", path)
		}
	}
	out, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

type edit struct{ path, value string }

type want struct{ ptr, msg string }

func TestValidateRules(t *testing.T) {
	const tool = "/spiritExtension/contributes/tools/0"
	const toolL = "spiritExtension.contributes.tools[0]"
	tests := []struct {
		name  string
		edits []edit
		raw   string // used instead of base+edits when set
		want  []want // errors only, in order
	}{
		{name: "valid base"},
		// Step 1–2
		{name: "not JSON", raw: `{"name": }`, want: []want{{"", "The extension package.json is not valid JSON."}}},
		{name: "root is a string", raw: `"x"`, want: []want{{"", "The extension package.json must be a JSON object."}}},
		{name: "root is null", raw: `null`, want: []want{{"", "The extension package.json must be a JSON object."}}},
		{name: "root is an array", raw: `[]`, want: []want{{"/spiritExtension", "The extension package.json is missing the spiritExtension field, which must be an object."}}},
		{name: "spiritExtension missing", edits: []edit{{"/spiritExtension", "<delete>"}},
			want: []want{{"/spiritExtension", "The extension package.json is missing the spiritExtension field, which must be an object."}}},
		{name: "spiritExtension a string", edits: []edit{{"/spiritExtension", `"x"`}},
			want: []want{{"/spiritExtension", "The extension package.json is missing the spiritExtension field, which must be an object."}}},
		{name: "spiritExtension an array counts as an empty object", edits: []edit{{"/spiritExtension", `[]`}},
			want: []want{
				{"/spiritExtension/displayName", "Extension field spiritExtension.displayName must not be empty."},
				{"/spiritExtension/supportedHosts", "Extension field spiritExtension.supportedHosts is missing; it must be a non-empty array with cli and/or desktop entries."},
			}},
		// Step 3
		{name: "schemaVersion string", edits: []edit{{"/spiritExtension/schemaVersion", `"1"`}},
			want: []want{{"/spiritExtension/schemaVersion", "Extension field spiritExtension.schemaVersion must be a number."}}},
		{name: "schemaVersion 2", edits: []edit{{"/spiritExtension/schemaVersion", `2`}},
			want: []want{{"/spiritExtension/schemaVersion", "Only extension package.json with spiritExtension.schemaVersion=1 is supported."}}},
		{name: "schemaVersion 1.0 is 1", edits: []edit{{"/spiritExtension/schemaVersion", `1.0`}}},
		{name: "schemaVersion huge is not finite", raw: strings.Replace(base, `"displayName"`, `"schemaVersion": 1e999, "displayName"`, 1),
			want: []want{{"/spiritExtension/schemaVersion", "Extension field spiritExtension.schemaVersion must be a number."}}},
		// Step 4
		{name: "name missing", edits: []edit{{"/name", "<delete>"}}, want: []want{{"/name", "Extension field name must not be empty."}}},
		{name: "name number", edits: []edit{{"/name", `5`}}, want: []want{{"/name", "Extension field name must not be empty."}}},
		{name: "name blank", edits: []edit{{"/name", `"   "`}}, want: []want{{"/name", "Extension field name must not be empty."}}},
		{name: "name upper case", edits: []edit{{"/name", `"MyExt"`}},
			want: []want{{"/name", "The extension package.json name field is invalid; it must be a valid npm package name, and only lowercase names with an optional scope are supported."}}},
		{name: "name padded is trimmed", edits: []edit{{"/name", `"  my-ext\t"`}}},
		{name: "name unscoped", edits: []edit{{"/name", `"my-ext"`}}},
		{name: "name bad scope", edits: []edit{{"/name", `"@/x"`}},
			want: []want{{"/name", "The extension package.json name field is invalid; it must be a valid npm package name, and only lowercase names with an optional scope are supported."}}},
		// Step 5
		{name: "displayName missing", edits: []edit{{"/spiritExtension/displayName", "<delete>"}},
			want: []want{{"/spiritExtension/displayName", "Extension field spiritExtension.displayName must not be empty."}}},
		{name: "displayName ideographic space is blank", edits: []edit{{"/spiritExtension/displayName", `"\u3000"`}},
			want: []want{{"/spiritExtension/displayName", "Extension field spiritExtension.displayName must not be empty."}}},
		// Step 6
		{name: "icon number", edits: []edit{{"/spiritExtension/icon", `3`}},
			want: []want{{"/spiritExtension/icon", "The extension package.json field spiritExtension.icon must be a string."}}},
		{name: "icon null is absent", edits: []edit{{"/spiritExtension/icon", `null`}}},
		{name: "icon blank is absent", edits: []edit{{"/spiritExtension/icon", `"  "`}}},
		// Step 7
		{name: "version missing", edits: []edit{{"/version", "<delete>"}}, want: []want{{"/version", "Extension field version must not be empty."}}},
		{name: "version blank", edits: []edit{{"/version", `""`}}, want: []want{{"/version", "Extension field version must not be empty."}}},
		// Step 8
		{name: "description number", edits: []edit{{"/description", `1`}},
			want: []want{{"/description", "The extension package.json field description must be a string."}}},
		{name: "homepage object", edits: []edit{{"/homepage", `{}`}},
			want: []want{{"/homepage", "The extension package.json field homepage must be a string."}}},
		{name: "main array", edits: []edit{{"/main", `[]`}},
			want: []want{{"/main", "The extension package.json field main must be a string."}}},
		// Step 9
		{name: "author string", edits: []edit{{"/author", `"Ann"`}}},
		{name: "author object", edits: []edit{{"/author", `{"name": "Ann"}`}}},
		{name: "author array yields none", edits: []edit{{"/author", `["Ann"]`}}},
		{name: "author number", edits: []edit{{"/author", `7`}},
			want: []want{{"/author", "The extension package.json author field must be a string or an object with a name field."}}},
		{name: "author name number", edits: []edit{{"/author", `{"name": 7}`}},
			want: []want{{"/author/name", "The extension package.json field author.name must be a string."}}},
		// Step 10–11
		{name: "activationEvents not an array is ignored", edits: []edit{{"/spiritExtension/activationEvents", `"onStartup"`}}},
		{name: "activationEvents non-string", edits: []edit{{"/spiritExtension/activationEvents", `["onStartup", 3]`}},
			want: []want{{"/spiritExtension/activationEvents/1", "Extension field spiritExtension.activationEvents must be an array of strings."}}},
		{name: "activationEvents unknown", edits: []edit{{"/spiritExtension/activationEvents", `[" onLunch "]`}},
			want: []want{{"/spiritExtension/activationEvents/0", "Extension field spiritExtension.activationEvents has an invalid value:  onLunch "}}},
		{name: "requestedCapabilities unknown", edits: []edit{{"/spiritExtension/requestedCapabilities", `["tool-definitions","tool-execution","fly"]`}},
			want: []want{{"/spiritExtension/requestedCapabilities/2", "Extension field spiritExtension.requestedCapabilities has an invalid value: fly"}}},
		{name: "requestedCapabilities non-string", edits: []edit{{"/spiritExtension/requestedCapabilities", `["tool-definitions","tool-execution",null]`}},
			want: []want{{"/spiritExtension/requestedCapabilities/2", "Extension field spiritExtension.requestedCapabilities must be an array of strings."}}},
		// Step 12: tools
		{name: "contributes not an object is ignored", edits: []edit{{"/spiritExtension/contributes", `"x"`}, {"/spiritExtension/requestedCapabilities", `[]`}}},
		{name: "tool not an object", edits: []edit{{tool, `"x"`}}, want: []want{{tool, "Extension field " + toolL + " must be an object."}}},
		{name: "tool an array", edits: []edit{{tool, `[]`}}, want: []want{
			{tool + "/name", "Extension field " + toolL + ".name must not be empty."},
			{tool + "/description", "Extension field " + toolL + ".description must not be empty."},
			{tool + "/inputSchema", "Extension field " + toolL + ".inputSchema must be an object."},
		}},
		{name: "tool name blank", edits: []edit{{tool + "/name", `" "`}}, want: []want{{tool + "/name", "Extension field " + toolL + ".name must not be empty."}}},
		{name: "tool name invalid", edits: []edit{{tool + "/name", `"Lookup Item"`}}, want: []want{{tool + "/name", "Invalid extension tool name: Lookup Item"}}},
		{name: "tool name double separator", edits: []edit{{tool + "/name", `"a__b"`}}, want: []want{{tool + "/name", "Invalid extension tool name: a__b"}}},
		{name: "tool description missing", edits: []edit{{tool + "/description", "<delete>"}}, want: []want{{tool + "/description", "Extension field " + toolL + ".description must not be empty."}}},
		{name: "tool inputSchema missing", edits: []edit{{tool + "/inputSchema", "<delete>"}}, want: []want{{tool + "/inputSchema", "Extension field " + toolL + ".inputSchema must be an object."}}},
		{name: "tool inputSchema string", edits: []edit{{tool + "/inputSchema", `"x"`}}, want: []want{{tool + "/inputSchema", "Extension field " + toolL + ".inputSchema must be an object."}}},
		{name: "tool outputSchema string", edits: []edit{{tool + "/outputSchema", `"x"`}}, want: []want{{tool + "/outputSchema", "Extension field " + toolL + ".outputSchema must be an object."}}},
		{name: "tool outputSchema null is absent", edits: []edit{{tool + "/outputSchema", `null`}}},
		{name: "approvalMode number", edits: []edit{{tool + "/approvalMode", `1`}}, want: []want{{tool + "/approvalMode", "Extension field " + toolL + ".approvalMode must be a string."}}},
		{name: "approvalMode unknown", edits: []edit{{tool + "/approvalMode", `"maybe"`}}, want: []want{{tool + "/approvalMode", "Extension field " + toolL + ".approvalMode has an invalid value: maybe"}}},
		{name: "approvalMode padded", edits: []edit{{tool + "/approvalMode", `" need-questions "`}}},
		{name: "executionMode unknown", edits: []edit{{tool + "/executionMode", `"sideways"`}}, want: []want{{tool + "/executionMode", "Extension field " + toolL + ".executionMode has an invalid value: sideways"}}},
		// Step 12: desktop
		{name: "desktop css item not object", edits: []edit{{"/spiritExtension/contributes/desktop", `{"css": [1]}`}},
			want: []want{{"/spiritExtension/contributes/desktop/css/0", "Extension field spiritExtension.contributes.desktop.css[0] must be an object."}}},
		{name: "desktop css path blank", edits: []edit{{"/spiritExtension/contributes/desktop", `{"css": [{"path": ""}]}`}},
			want: []want{{"/spiritExtension/contributes/desktop/css/0/path", "Extension field spiritExtension.contributes.desktop.css[0].path must not be empty."}}},
		{name: "desktop css path absolute", edits: []edit{{"/spiritExtension/contributes/desktop", `{"css": [{"path": "/x.css"}]}`}},
			want: []want{{"/spiritExtension/contributes/desktop/css/0/path", "Extension spiritExtension.contributes.desktop.css[0].path must be a relative path."}}},
		{name: "desktop empty is absent", edits: []edit{{"/spiritExtension/contributes/desktop", `{}`}}},
		{name: "desktop without desktop-ui", edits: []edit{{"/spiritExtension/contributes/desktop", `{"settingsPage": true}`}},
			want: []want{{"/spiritExtension/contributes/desktop", "The extension declares spiritExtension.contributes.desktop but is missing desktop-ui in spiritExtension.requestedCapabilities."}}},
		{name: "desktop-ui without desktop", edits: []edit{{"/spiritExtension/requestedCapabilities", `["tool-definitions","tool-execution","desktop-ui"]`}},
			want: []want{{"/spiritExtension/requestedCapabilities", "The extension declares the desktop-ui capability but is missing spiritExtension.contributes.desktop."}}},
		{name: "desktop paired", edits: []edit{
			{"/spiritExtension/requestedCapabilities", `["tool-definitions","tool-execution","desktop-ui"]`},
			{"/spiritExtension/contributes/desktop", `{"css": [{"path": "./style.css", "media": "print"}], "settingsPage": {"title": "T"}}`}}},
		{name: "settingsPage string", edits: []edit{{"/spiritExtension/contributes/desktop", `{"settingsPage": "yes"}`}},
			want: []want{{"/spiritExtension/contributes/desktop/settingsPage", "Extension field spiritExtension.contributes.desktop.settingsPage must be a boolean or an object."}}},
		// Step 12: cli
		{name: "cli hooks string", edits: []edit{{"/spiritExtension/contributes/cli", `{"hooks": "x"}`}},
			want: []want{{"/spiritExtension/contributes/cli/hooks", "Extension field spiritExtension.contributes.cli.hooks must be an object that references an external resource file via path."}}},
		{name: "cli hooks array fails on path", edits: []edit{{"/spiritExtension/contributes/cli", `{"hooks": []}`}},
			want: []want{{"/spiritExtension/contributes/cli/hooks/path", "Extension field spiritExtension.contributes.cli.hooks.path must not be empty."}}},
		{name: "cli hooks path traversal", edits: []edit{{"/spiritExtension/contributes/cli", `{"hooks": {"path": "a/../hooks.json"}}`}},
			want: []want{{"/spiritExtension/contributes/cli/hooks/path", "Extension spiritExtension.contributes.cli.hooks.path contains an illegal path segment."}}},
		{name: "cli hooks file missing", edits: []edit{{"/spiritExtension/contributes/cli", `{"hooks": {"path": "./none.json"}}`}},
			want: []want{{"/spiritExtension/contributes/cli/hooks/path", "The file referenced by extension spiritExtension.contributes.cli.hooks.path does not exist: ./none.json"}}},
		{name: "cli hooks file not JSON", edits: []edit{{"/spiritExtension/contributes/cli", `{"hooks": {"path": "notjson.json"}}`}},
			want: []want{{"/spiritExtension/contributes/cli/hooks/path", "The extension CLI hooks resource is not valid JSON: notjson.json"}}},
		{name: "cli hooks file without list", edits: []edit{{"/spiritExtension/contributes/cli", `{"hooks": {"path": "nohooks.json"}}`}},
			want: []want{{"/spiritExtension/contributes/cli/hooks/path", `The extension CLI hooks resource must be an object of the form { "hooks": [...] }: nohooks.json`}}},
		{name: "cli hooks entries", edits: []edit{
			{"/spiritExtension/requestedCapabilities", `["tool-definitions","tool-execution","cli-ui"]`},
			{"/spiritExtension/contributes/cli", `{"hooks": {"path": "bad-hooks.json"}}`}},
			want: []want{
				{"/spiritExtension/contributes/cli/hooks/path", "Extension field CLI hooks resource bad-hooks.json.hooks[0] must be an object."},
				{"/spiritExtension/contributes/cli/hooks/path", "Extension field CLI hooks resource bad-hooks.json.hooks[1].slot has an invalid value: nope"},
				{"/spiritExtension/contributes/cli/hooks/path", "Extension field CLI hooks resource bad-hooks.json.hooks[2].variant has an invalid value: loud"},
				{"/spiritExtension/contributes/cli/hooks/path", "Extension field CLI hooks resource bad-hooks.json.hooks[2].tokens.accent has an invalid value: pink"},
			}},
		{name: "cli hooks path with backslashes", edits: []edit{
			{"/spiritExtension/requestedCapabilities", `["tool-definitions","tool-execution","cli-ui"]`},
			{"/spiritExtension/contributes/cli", `{"hooks": {"path": ".\\hooks.json"}}`}}},
		{name: "cli hooks file missing with cli-ui", edits: []edit{
			{"/spiritExtension/requestedCapabilities", `["tool-definitions","tool-execution","cli-ui"]`},
			{"/spiritExtension/contributes/cli", `{"hooks": {"path": "none.json"}}`}},
			want: []want{{"/spiritExtension/contributes/cli/hooks/path", "The file referenced by extension spiritExtension.contributes.cli.hooks.path does not exist: none.json"}}},
		{name: "cli paired", edits: []edit{
			{"/spiritExtension/requestedCapabilities", `["tool-definitions","tool-execution","cli-ui"]`},
			{"/spiritExtension/contributes/cli", `{"hooks": {"path": "hooks.json"}}`}}},
		{name: "cli without cli-ui", edits: []edit{{"/spiritExtension/contributes/cli", `{"hooks": {"path": "hooks.json"}}`}},
			want: []want{{"/spiritExtension/contributes/cli", "The extension declares spiritExtension.contributes.cli but is missing cli-ui in spiritExtension.requestedCapabilities."}}},
		// Step 13: settings
		{name: "setting not object", edits: []edit{{"/spiritExtension/settingsSchema", `[true]`}},
			want: []want{{"/spiritExtension/settingsSchema/0", "Extension field spiritExtension.settingsSchema[0] must be an object."}}},
		{name: "setting empty object", edits: []edit{{"/spiritExtension/settingsSchema", `[{}]`}}, want: []want{
			{"/spiritExtension/settingsSchema/0/key", "Extension field spiritExtension.settingsSchema[0].key must not be empty."},
			{"/spiritExtension/settingsSchema/0/type", "Extension field spiritExtension.settingsSchema[0].type must be a string."},
			{"/spiritExtension/settingsSchema/0/title", "Extension field spiritExtension.settingsSchema[0].title must not be empty."},
		}},
		{name: "setting key invalid", edits: []edit{{"/spiritExtension/settingsSchema", `[{"key":"Bad Key","type":"string","title":"T"}]`}},
			want: []want{{"/spiritExtension/settingsSchema/0/key", "Invalid extension setting key: Bad Key"}}},
		{name: "setting type unknown", edits: []edit{{"/spiritExtension/settingsSchema", `[{"key":"k","type":"color","title":"T"}]`}},
			want: []want{{"/spiritExtension/settingsSchema/0/type", "Extension field spiritExtension.settingsSchema[0].type has an invalid value: color"}}},
		{name: "setting string default number", edits: []edit{{"/spiritExtension/settingsSchema", `[{"key":"k","type":"string","title":"T","defaultValue":1}]`}},
			want: []want{{"/spiritExtension/settingsSchema/0/defaultValue", "Extension field spiritExtension.settingsSchema[0].defaultValue must be a string."}}},
		{name: "setting boolean default string", edits: []edit{{"/spiritExtension/settingsSchema", `[{"key":"k","type":"boolean","title":"T","defaultValue":"true"}]`}},
			want: []want{{"/spiritExtension/settingsSchema/0/defaultValue", "Extension field spiritExtension.settingsSchema[0].defaultValue must be a boolean."}}},
		{name: "setting number default string", edits: []edit{{"/spiritExtension/settingsSchema", `[{"key":"k","type":"number","title":"T","defaultValue":"1"}]`}},
			want: []want{{"/spiritExtension/settingsSchema/0/defaultValue", "Extension field spiritExtension.settingsSchema[0].defaultValue must be a number."}}},
		{name: "setting default null is absent", edits: []edit{{"/spiritExtension/settingsSchema", `[{"key":"k","type":"number","title":"T","defaultValue":null,"required":"yes"}]`}}},
		{name: "setting options on string", edits: []edit{{"/spiritExtension/settingsSchema", `[{"key":"k","type":"string","title":"T","options":"x"}]`}},
			want: []want{{"/spiritExtension/settingsSchema/0/options", "Only select-type settings may declare options: spiritExtension.settingsSchema[0]"}}},
		{name: "setting options not array", edits: []edit{{"/spiritExtension/settingsSchema", `[{"key":"k","type":"select","title":"T","options":{}}]`}},
			want: []want{{"/spiritExtension/settingsSchema/0/options", "Extension field spiritExtension.settingsSchema[0].options must be an array."}}},
		{name: "setting option broken", edits: []edit{{"/spiritExtension/settingsSchema", `[{"key":"k","type":"select","title":"T","options":[3,{"value":"","label":"L"}]}]`}},
			want: []want{
				{"/spiritExtension/settingsSchema/0/options/0", "Extension field spiritExtension.settingsSchema[0].options[0] must be an object."},
				{"/spiritExtension/settingsSchema/0/options/1/value", "Extension field spiritExtension.settingsSchema[0].options[1].value must not be empty."},
			}},
		// Step 14: secret slots
		{name: "secret slot not object", edits: []edit{{"/spiritExtension/secretSlots", `["k"]`}},
			want: []want{{"/spiritExtension/secretSlots/0", "Extension field spiritExtension.secretSlots[0] must be an object."}}},
		{name: "secret slot key invalid", edits: []edit{{"/spiritExtension/secretSlots", `[{"key":"API_KEY","title":"T"}]`}},
			want: []want{{"/spiritExtension/secretSlots/0/key", "Invalid extension secret slot key: API_KEY"}}},
		{name: "secret slot title missing", edits: []edit{{"/spiritExtension/secretSlots", `[{"key":"k"}]`}},
			want: []want{{"/spiritExtension/secretSlots/0/title", "Extension field spiritExtension.secretSlots[0].title must not be empty."}}},
		// Step 15
		{name: "supportedHosts missing", edits: []edit{{"/spiritExtension/supportedHosts", "<delete>"}},
			want: []want{{"/spiritExtension/supportedHosts", "Extension field spiritExtension.supportedHosts is missing; it must be a non-empty array with cli and/or desktop entries."}}},
		{name: "supportedHosts null", edits: []edit{{"/spiritExtension/supportedHosts", `null`}},
			want: []want{{"/spiritExtension/supportedHosts", "Extension field spiritExtension.supportedHosts is missing; it must be a non-empty array with cli and/or desktop entries."}}},
		{name: "supportedHosts string", edits: []edit{{"/spiritExtension/supportedHosts", `"cli"`}},
			want: []want{{"/spiritExtension/supportedHosts", "Extension field spiritExtension.supportedHosts must be an array of strings."}}},
		{name: "supportedHosts empty", edits: []edit{{"/spiritExtension/supportedHosts", `[]`}},
			want: []want{{"/spiritExtension/supportedHosts", "Extension field spiritExtension.supportedHosts must contain at least one entry (cli or desktop)."}}},
		{name: "supportedHosts number", edits: []edit{{"/spiritExtension/supportedHosts", `["cli", 1]`}},
			want: []want{{"/spiritExtension/supportedHosts/1", "Extension field spiritExtension.supportedHosts must be an array of strings."}}},
		{name: "supportedHosts unknown", edits: []edit{{"/spiritExtension/supportedHosts", `["web"]`}},
			want: []want{{"/spiritExtension/supportedHosts/0", "Extension field spiritExtension.supportedHosts has an invalid value: web"}}},
		// Steps 16–17 and §2.2
		{name: "main absolute", edits: []edit{{"/main", `"/index.js"`}}, want: []want{{"/main", "Extension main must be a relative path."}}},
		{name: "main drive letter", edits: []edit{{"/main", `"C:index.js"`}}, want: []want{{"/main", "Extension main must be a relative path."}}},
		{name: "main double dot-slash", edits: []edit{{"/main", `"././index.js"`}}, want: []want{{"/main", "Extension main contains an illegal path segment."}}},
		{name: "main trailing slash", edits: []edit{{"/main", `"dir/"`}}, want: []want{{"/main", "Extension main contains an illegal path segment."}}},
		{name: "main backslash parent", edits: []edit{{"/main", `"..\\index.js"`}}, want: []want{{"/main", "Extension main contains an illegal path segment."}}},
		{name: "main dot-slash kept", edits: []edit{{"/main", `"./index.js"`}}},
		{name: "main backslash is not found on POSIX", edits: []edit{{"/main", `"dir\\x"`}}, want: []want{{"/main", `The extension main file does not exist: dir\x`}}},
		{name: "icon traversal", edits: []edit{{"/spiritExtension/icon", `"../icon.png"`}}, want: []want{{"/spiritExtension/icon", "Extension spiritExtension.icon contains an illegal path segment."}}},
		// Strict errors beyond the reference
		{name: "duplicate tool names", edits: []edit{{"/spiritExtension/contributes/tools/1", `{"name":"lookup_item","description":"d","inputSchema":{"type":"object"}}`}},
			raw:  strings.Replace(base, `"inputSchema": {"type": "object"}}]`, `"inputSchema": {"type": "object"}}, {"name": "lookup_item", "description": "again", "inputSchema": {"type": "object"}}]`, 1),
			want: []want{{"/spiritExtension/contributes/tools/1/name", "Duplicate extension tool name: lookup_item"}}},
		{name: "pointers of later tools stay right when an earlier one is broken",
			raw: strings.Replace(base, `"tools": [`, `"tools": [7, {"name": "other", "description": "d", "inputSchema": {"type": "string"}}, `, 1),
			want: []want{
				{tool, "Extension field " + toolL + " must be an object."},
				{"/spiritExtension/contributes/tools/1/inputSchema", `Extension field spiritExtension.contributes.tools[1].inputSchema must be a JSON Schema of "type": "object".`},
			}},
		{name: "pointers of later stylesheets stay right when an earlier one is broken", edits: []edit{
			{"/spiritExtension/requestedCapabilities", `["tool-definitions","tool-execution","desktop-ui"]`},
			{"/spiritExtension/contributes/desktop", `{"css": [{"path": ""}, {"path": "none.css"}]}`}},
			want: []want{
				{"/spiritExtension/contributes/desktop/css/0/path", "Extension field spiritExtension.contributes.desktop.css[0].path must not be empty."},
				{"/spiritExtension/contributes/desktop/css/1/path", "The file referenced by extension spiritExtension.contributes.desktop.css[1].path does not exist: none.css"},
			}},
		{name: "duplicate setting keys", edits: []edit{{"/spiritExtension/settingsSchema", `[{"key":"k","type":"string","title":"A"},{"key":"k","type":"boolean","title":"B"}]`}},
			want: []want{{"/spiritExtension/settingsSchema/1/key", "Duplicate extension setting key: k"}}},
		{name: "duplicate secret keys", edits: []edit{{"/spiritExtension/requestedCapabilities", `["tool-definitions","tool-execution","secret-storage"]`}, {"/spiritExtension/secretSlots", `[{"key":"k","title":"A"},{"key":"k","title":"B"}]`}},
			want: []want{{"/spiritExtension/secretSlots/1/key", "Duplicate extension secret slot key: k"}}},
		{name: "select without options", edits: []edit{{"/spiritExtension/settingsSchema", `[{"key":"k","type":"select","title":"T","options":[]}]`}},
			want: []want{{"/spiritExtension/settingsSchema/0/options", "Extension setting k is a select but declares no options."}}},
		{name: "select default outside options", edits: []edit{{"/spiritExtension/settingsSchema", `[{"key":"k","type":"select","title":"T","defaultValue":"c","options":[{"value":"a","label":"A"}]}]`}},
			want: []want{{"/spiritExtension/settingsSchema/0/defaultValue", "Extension setting k has a default value that is not one of its options: c"}}},
		{name: "inputSchema not type object", edits: []edit{{tool + "/inputSchema", `{"type":"string"}`}},
			want: []want{{tool + "/inputSchema", `Extension field ` + toolL + `.inputSchema must be a JSON Schema of "type": "object".`}}},
		{name: "inputSchema array", edits: []edit{{tool + "/inputSchema", `[]`}},
			want: []want{{tool + "/inputSchema", `Extension field ` + toolL + `.inputSchema must be a JSON Schema object, not an array.`}}},
		{name: "inputSchema does not compile", edits: []edit{{tool + "/inputSchema", `{"type":"object","properties":{"a":{"type":"integer","minimum":"x"}}}`}},
			want: []want{{tool + "/inputSchema", "prefix:Extension field " + toolL + ".inputSchema is not a valid JSON Schema: "}}},
		{name: "outputSchema remote ref refused", edits: []edit{{tool + "/outputSchema", `{"type":"object","$ref":"https://example.com/s.json"}`}},
			want: []want{{tool + "/outputSchema", "prefix:Extension field " + toolL + ".outputSchema is not a valid JSON Schema: "}}},
		{name: "main file missing", edits: []edit{{"/main", `"lib/none.js"`}}, want: []want{{"/main", "The extension main file does not exist: lib/none.js"}}},
		{name: "main is a directory", edits: []edit{{"/main", `"dir"`}}, want: []want{{"/main", "Extension main names a directory, not a file: dir"}}},
		{name: "icon file missing", edits: []edit{{"/spiritExtension/icon", `"none.png"`}}, want: []want{{"/spiritExtension/icon", "The file referenced by extension spiritExtension.icon does not exist: none.png"}}},
		{name: "css file missing", edits: []edit{
			{"/spiritExtension/requestedCapabilities", `["tool-definitions","tool-execution","desktop-ui"]`},
			{"/spiritExtension/contributes/desktop", `{"css": [{"path": "none.css"}]}`}},
			want: []want{{"/spiritExtension/contributes/desktop/css/0/path", "The file referenced by extension spiritExtension.contributes.desktop.css[0].path does not exist: none.css"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := tt.raw
			if doc == "" {
				doc = base
				for _, e := range tt.edits {
					doc = set(t, doc, e.path, e.value)
				}
			}
			r := Validate([]byte(doc), baseFiles, Options{})
			var got []want
			for _, p := range r.Errors() {
				got = append(got, want{p.Pointer, p.Message})
			}
			wantList := tt.want
			for i := range wantList {
				if rest, ok := strings.CutPrefix(wantList[i].msg, "prefix:"); ok && i < len(got) && strings.HasPrefix(got[i].msg, rest) {
					wantList[i].msg = got[i].msg
				}
			}
			if diff := cmp.Diff(wantList, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if r.Valid() != (len(tt.want) == 0) {
				t.Errorf("Valid() = %v with %d expected errors", r.Valid(), len(tt.want))
			}
		})
	}
}
