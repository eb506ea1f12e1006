package manifest

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzValidate feeds arbitrary bytes to the parser: it must never panic, and
// a valid report must carry a manifest with an id, a version and hosts.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(base))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"spiritExtension": []}`))
	f.Add([]byte("\uFEFF{}"))
	f.Add([]byte(`{"name":"a","version":"1","spiritExtension":{"displayName":"x","supportedHosts":["cli"],"contributes":{"cli":{"hooks":{"path":"bad-hooks.json"}},"tools":[[],1,{"name":"a"}]},"settingsSchema":[{"key":"k","type":"select","options":[{}],"defaultValue":1e999}]}}`))
	if data, err := os.ReadFile(filepath.Join("..", "testdata", "examples", "lookup-tools", "package.json")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
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
