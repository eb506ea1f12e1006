package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// NoToolSchemas leaves out only the tools' schemas, and only for trusted
// bytes: untrusted ones have their schemas read and checked as always.
func TestNoToolSchemas(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "examples", "lookup-tools"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	full := Validate(data, DirFS(dir), Options{Installed: true, Trusted: true})
	brief := Validate(data, DirFS(dir), Options{Installed: true, Trusted: true, NoToolSchemas: true})
	if !full.Valid() || !brief.Valid() {
		t.Fatalf("problems: %v / %v", full.Problems, brief.Problems)
	}
	if len(full.Manifest.Tools()) == 0 {
		t.Fatal("the example has no tools")
	}
	want := *full.Manifest
	want.Contributes = &Contributes{}
	*want.Contributes = *full.Manifest.Contributes
	want.Contributes.Tools = nil
	for _, tool := range full.Manifest.Tools() {
		if len(tool.InputSchema) == 0 {
			t.Fatalf("tool %s has no inputSchema in full", tool.Name)
		}
		tool.InputSchema, tool.OutputSchema = nil, nil
		want.Contributes.Tools = append(want.Contributes.Tools, tool)
	}
	if diff := cmp.Diff(&want, brief.Manifest); diff != "" {
		t.Errorf("NoToolSchemas manifest differs beyond the schemas (-want +got):\n%s", diff)
	}
	untrusted := Validate(data, DirFS(dir), Options{Installed: true, NoToolSchemas: true})
	if diff := cmp.Diff(full.Manifest, untrusted.Manifest); diff != "" {
		t.Errorf("NoToolSchemas without Trusted changed the manifest (-full +got):\n%s", diff)
	}
}
