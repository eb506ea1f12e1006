package manifest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzValidate feeds arbitrary bytes to the parser: it must never panic, and
// a valid report must carry a manifest with an id, a version and hosts.
// The same bytes go through the Trusted path too (what list does when a
// record's digest matches: a tampered record makes any bytes trusted), which
// must not panic either.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(base))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"spiritExtension": []}`))
	f.Add([]byte("\uFEFF{}"))
	f.Add([]byte(`{"name":"a","version":"1","spiritExtension":{"displayName":"x","supportedHosts":["cli"],"contributes":{"cli":{"hooks":{"path":"bad-hooks.json"}},"tools":[[],1,{"name":"a"}]},"settingsSchema":[{"key":"k","type":"select","options":[{}],"defaultValue":1e999}]}}`))
	if data, err := os.ReadFile(filepath.Join("..", "testdata", "examples", "lookup-tools", "package.json")); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"name":"a","version":"1","spiritExtension":{"displayName":"x","supportedHosts":[1],"requestedCapabilities":[true],"activationEvents":[{}],"contributes":{"cli":{"hooks":"x"}},"settingsSchema":[{"key":"k","type":1}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		Validate(data, baseFiles, Options{Host: "cli", Installed: true, Trusted: true})
		Validate(data, baseFiles, Options{Installed: true, Trusted: true, NoToolSchemas: true})
		r := Validate(data, baseFiles, Options{Host: "cli"})
		if r.Valid() {
			m := r.Manifest
			if m == nil || m.ID == "" || m.Version == "" || m.Name == "" || len(m.SupportedHosts) == 0 {
				t.Fatalf("valid report with an incomplete manifest: %+v", m)
			}
		}
		for _, p := range r.Problems {
			if p.Message == "" {
				t.Fatalf("problem without a message: %+v", p)
			}
		}
	})
}

// TestTrustedNonStringsAreErrors: the Trusted path skips the schema pass, so
// only its own type tests stand between a tampered record's bytes and a
// panic; each wrong type is an error, as the schema pass would report it.
func TestTrustedNonStringsAreErrors(t *testing.T) {
	for _, c := range []struct{ field, want string }{
		{`"supportedHosts":[1]`, "spiritExtension.supportedHosts must be an array of strings"},
		{`"supportedHosts":["cli"],"requestedCapabilities":[true]`, "spiritExtension.requestedCapabilities must be an array of strings"},
		{`"supportedHosts":["cli"],"activationEvents":[{}]`, "spiritExtension.activationEvents must be an array of strings"},
		{`"supportedHosts":["cli"],"contributes":{"cli":{"hooks":"x"}}`, "hooks must be an object"},
		{`"supportedHosts":["cli"],"settingsSchema":[{"key":"k","title":"K","type":1}]`, ".type must be a string"},
	} {
		doc := `{"name":"a","version":"1.0.0","main":"index.js","spiritExtension":{"displayName":"A",` + c.field + `}}`
		for _, opts := range []Options{{Installed: true, Trusted: true}, {Installed: true, Trusted: true, NoToolSchemas: true}, {}} {
			r := Validate([]byte(doc), baseFiles, opts)
			if r.Valid() || !slices.ContainsFunc(r.Errors(), func(p Problem) bool { return strings.Contains(p.Message, c.want) }) {
				t.Errorf("%s with %+v: %+v, want an error %q", c.field, opts, r.Errors(), c.want)
			}
		}
	}
}
