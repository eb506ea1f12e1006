package manifest

import (
	"strings"
	"testing"
)

// Where the apps' message says only what is wrong, the problem's Hint says
// how to fix it; the message itself stays the apps' text.
func TestValidationHints(t *testing.T) {
	const ext = `"spiritExtension":{"displayName":"X","supportedHosts":["cli"]%s}`
	tests := []struct {
		name        string
		doc         string
		pointer     string
		wantMessage string
		wantHint    string
	}{
		{
			name:        "tool name",
			doc:         `{"name":"x","version":"1.0.0","main":"i.js",` + strings.Replace(ext, "%s", `,"requestedCapabilities":["tool-definitions","tool-execution"],"contributes":{"tools":[{"name":"Get Weather!","description":"d","inputSchema":{"type":"object"}}]}`, 1) + `}`,
			pointer:     "/spiritExtension/contributes/tools/0/name",
			wantMessage: "Invalid extension tool name: Get Weather!",
			wantHint:    `a tool name is lowercase letters and digits, in words joined by one ".", "_" or "-", such as "get-weather"`,
		},
		{
			name:        "capability",
			doc:         `{"name":"x","version":"1.0.0",` + strings.Replace(ext, "%s", `,"requestedCapabilities":["setting"]`, 1) + `}`,
			pointer:     "/spiritExtension/requestedCapabilities/0",
			wantMessage: "Extension field spiritExtension.requestedCapabilities has an invalid value: setting",
			wantHint:    "did you mean settings? allowed values: tool-definitions, tool-execution, system-prompt, approval-flow, questions-flow, settings, secret-storage, structured-results, desktop-ui, cli-ui",
		},
		{
			name:        "host",
			doc:         `{"name":"x","version":"1.0.0","spiritExtension":{"displayName":"X","supportedHosts":["phone"]}}`,
			pointer:     "/spiritExtension/supportedHosts/0",
			wantMessage: "Extension field spiritExtension.supportedHosts has an invalid value: phone",
			wantHint:    "allowed values: cli, desktop",
		},
		{
			name:        "approval mode",
			doc:         `{"name":"x","version":"1.0.0","main":"i.js",` + strings.Replace(ext, "%s", `,"requestedCapabilities":["tool-definitions","tool-execution"],"contributes":{"tools":[{"name":"t","description":"d","inputSchema":{"type":"object"},"approvalMode":"need_approval"}]}`, 1) + `}`,
			pointer:     "/spiritExtension/contributes/tools/0/approvalMode",
			wantMessage: "Extension field spiritExtension.contributes.tools[0].approvalMode has an invalid value: need_approval",
			wantHint:    "did you mean need-approval? allowed values: allowed, need-approval, need-questions",
		},
		{
			name:        "version a number",
			doc:         `{"name":"x","version":1,` + strings.Replace(ext, "%s", "", 1) + `}`,
			pointer:     "/version",
			wantMessage: "Extension field version must not be empty.",
			wantHint:    `version must be a string, such as "1.0.0", not a number`,
		},
		{
			name:        "spiritExtension misspelled",
			doc:         `{"name":"x","version":"1.0.0","spiritextension":{"displayName":"X","supportedHosts":["cli"]}}`,
			pointer:     "/spiritExtension",
			wantMessage: "The extension package.json is missing the spiritExtension field, which must be an object.",
			wantHint:    `did you mean spiritExtension? package.json has "spiritextension"`,
		},
		{
			name:        "not an extension",
			doc:         `{"name":"left-pad","version":"1.3.0","main":"index.js"}`,
			pointer:     "/spiritExtension",
			wantMessage: "The extension package.json is missing the spiritExtension field, which must be an object.",
			wantHint:    `this package is not a Spirit extension: an extension's package.json has a "spiritExtension" object (spirit extension create makes one)`,
		},
		{
			name:        "misspelled top-level key",
			doc:         `{"name":"x","version":"1.0.0","descripton":"d",` + strings.Replace(ext, "%s", "", 1) + `}`,
			pointer:     "/descripton",
			wantMessage: "The key descripton is not a field of package.json; it is ignored.",
			wantHint:    "did you mean description?",
		},
		{
			name:        "misspelled key in a tool",
			doc:         `{"name":"x","version":"1.0.0","main":"i.js",` + strings.Replace(ext, "%s", `,"requestedCapabilities":["tool-definitions","tool-execution"],"contributes":{"tools":[{"name":"t","descripton":"d","description":"d","inputSchema":{"type":"object"}}]}`, 1) + `}`,
			pointer:     "/spiritExtension/contributes/tools/0/descripton",
			wantMessage: "The key descripton is not a field of spiritExtension.contributes.tools[0]; it is ignored.",
			wantHint:    "did you mean description?",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Validate([]byte(tt.doc), nil, Options{})
			for _, p := range r.Problems {
				if p.Pointer == tt.pointer && p.Message == tt.wantMessage {
					if p.Hint != tt.wantHint {
						t.Errorf("hint %q\nwant %q", p.Hint, tt.wantHint)
					}
					return
				}
			}
			t.Errorf("no problem at %s with message %q in %+v", tt.pointer, tt.wantMessage, r.Problems)
		})
	}
}

// Keys npm knows, keys far from every known one, and the keys of a tool's
// own JSON Schema are not reported.
func TestUnknownKeysLeftAlone(t *testing.T) {
	doc := `{"name":"x","version":"1.0.0","main":"i.js","license":"MIT","scripts":{},"xyzzy":1,"engines":{},
	"spiritExtension":{"displayName":"X","supportedHosts":["cli"],"requestedCapabilities":["tool-definitions","tool-execution"],
	"contributes":{"tools":[{"name":"t","description":"d","inputSchema":{"type":"object","propertes":{}}}]}}}`
	r := Validate([]byte(doc), nil, Options{})
	for _, p := range r.Problems {
		if strings.Contains(p.Message, "is not a field") {
			t.Errorf("reported: %s %s", p.Pointer, p.Message)
		}
	}
}
