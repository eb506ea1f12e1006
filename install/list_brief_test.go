package install_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/manifest"
)

// TestListAllBriefIsListAll: ListAllBrief lists what ListAll lists, but
// for the tools' schemas, over the example, runtime and MCP packages,
// before and after changes made after install: package.json edited (a
// description; a key close to a known one, a hint that list does not show; a name the schema
// refuses, which breaks it; a version, which makes spirit's record stale)
// and a main deleted under bytes still as installed (which warns).
func TestListAllBriefIsListAll(t *testing.T) {
	in, _ := newInstaller(t)
	var srcs []string
	for _, glob := range []string{"examples/*/package.json", "runtime/*/package.json", "mcp/*/package.json"} {
		found, err := filepath.Glob(filepath.Join("..", "testdata", glob))
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, found...)
	}
	installed := map[string]string{} // id -> folder
	for _, src := range srcs {
		res, err := in.Install(context.Background(), install.Request{Path: filepath.Dir(src)})
		if err != nil {
			continue // the fixtures made to fail
		}
		installed[res.ID] = res.Dir
	}
	if len(installed) < 20 {
		t.Fatalf("installed %d fixtures", len(installed))
	}
	_ = compareBriefToAll(t, in, installed)

	// After install: package.json edits (validated in full again), and a
	// deleted main under bytes still as installed.
	edits := map[string][2]string{
		"hello-tools": {`"description": "`, `"description": "Edited after install: `},
		"caps-all":    {`"displayName"`, `"displayname": "x", "displayName"`},
		"caps-prompt": {`"name": "caps-prompt"`, `"name": "Caps-Prompt"`},
		"caps-none":   {`"version": "`, `"version": "9.`},
	}
	for id, edit := range edits {
		file := filepath.Join(installed[id], "package.json")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(data), edit[0], edit[1], 1)
		if edited == string(data) {
			t.Fatalf("%s: no %s in %s", id, edit[0], data)
		}
		if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(installed["caps-both"], "index.mjs")); err != nil {
		t.Fatal(err)
	}
	brief := compareBriefToAll(t, in, installed)
	byID := map[string]install.Installed{}
	for _, in := range brief {
		byID[in.ID] = in
	}
	if got := byID["hello-tools"]; got.Manifest == nil || !strings.HasPrefix(got.Manifest.Description, "Edited") {
		t.Errorf("hello-tools: %+v", got.Manifest)
	}
	if got := byID["caps-all"]; got.Broken != nil || got.StaleRecord == nil {
		t.Errorf("caps-all: broken %v, stale record %v", got.Broken, got.StaleRecord)
	}
	if got := byID["caps-prompt"]; got.Broken == nil {
		t.Errorf("caps-prompt is not broken")
	}
	if got := byID["caps-none"]; got.StaleRecord == nil {
		t.Errorf("caps-none: the record is not stale")
	}
	if got := byID["caps-both"]; len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "main file does not exist") {
		t.Errorf("caps-both: warnings %q", got.Warnings)
	}
}

// compareBriefToAll compares ListAllBrief with ListAll and returns the former.
func compareBriefToAll(t *testing.T, in *install.Installer, installed map[string]string) []install.Installed {
	t.Helper()
	all, err := install.ListAll(in.Paths)
	if err != nil {
		t.Fatal(err)
	}
	brief, err := install.ListAllBrief(in.Paths)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(installed) {
		t.Fatalf("ListAll lists %d of %d installs", len(all), len(installed))
	}
	withoutSchemas(all)
	withoutSchemas(brief)
	if diff := cmp.Diff(all, brief); diff != "" {
		t.Errorf("ListAllBrief differs from ListAll beyond the tools' schemas (-all +brief):\n%s", diff)
	}
	return brief
}

// withoutSchemas leaves the tools' schemas out of the manifests of list:
// ListAllBrief reads them only for bytes not recorded at install.
func withoutSchemas(list []install.Installed) {
	for i := range list {
		m := list[i].Manifest
		if m == nil || m.Contributes == nil {
			continue
		}
		c := *m.Contributes
		c.Tools = append([]manifest.Tool(nil), c.Tools...)
		for j := range c.Tools {
			c.Tools[j].InputSchema, c.Tools[j].OutputSchema = nil, nil
		}
		copied := *m
		copied.Contributes = &c
		list[i].Manifest = &copied
	}
}
