package manifest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

const toolsWithoutMain = "The extension contributes tools but declares no main; Spirit Agent shows them to the model and every call fails, spirit does not expose them."

func TestWarnings(t *testing.T) {
	tests := []struct {
		name  string
		edits []edit
		want  []want
	}{
		{name: "version not semver", edits: []edit{{"/version", `"banana"`}},
			want: []want{{"/version", "Extension version banana is not strict semantic versioning (MAJOR.MINOR.PATCH); updates cannot be ordered."}}},
		{name: "version with v prefix", edits: []edit{{"/version", `"v1.0.0"`}},
			want: []want{{"/version", "Extension version v1.0.0 is not strict semantic versioning (MAJOR.MINOR.PATCH); updates cannot be ordered."}}},
		{name: "tools without tool-execution", edits: []edit{{"/spiritExtension/requestedCapabilities", `["tool-definitions"]`}},
			want: []want{{"/spiritExtension/contributes/tools", "The extension contributes tools but does not request both tool-definitions and tool-execution; Spirit Agent will not expose them."}}},
		{name: "system-prompt without main", edits: []edit{{"/main", "<delete>"}, {"/spiritExtension/requestedCapabilities", `["tool-definitions","tool-execution","system-prompt"]`}},
			want: []want{{"/spiritExtension/contributes/tools", toolsWithoutMain}, {"/spiritExtension/requestedCapabilities", "The extension requests system-prompt but declares no main; it cannot provide a system prompt."}}},
		{name: "tools without main", edits: []edit{{"/main", "<delete>"}},
			want: []want{{"/spiritExtension/contributes/tools", toolsWithoutMain}}},
		{name: "activationEvents without main", edits: []edit{{"/main", "<delete>"}, {"/spiritExtension/activationEvents", `["onStartup"]`}},
			want: []want{{"/spiritExtension/contributes/tools", toolsWithoutMain}, {"/spiritExtension/activationEvents", "The extension declares activationEvents but no main; no event can reach it."}}},
		{name: "secretSlots without secret-storage", edits: []edit{{"/spiritExtension/secretSlots", `[{"key":"k","title":"T"}]`}},
			want: []want{{"/spiritExtension/secretSlots", "The extension declares secretSlots but does not request secret-storage."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := base
			for _, e := range tt.edits {
				doc = set(t, doc, e.path, e.value)
			}
			r := Validate([]byte(doc), baseFiles, Options{})
			if !r.Valid() {
				t.Fatalf("warnings only expected, got errors %v", r.Errors())
			}
			var got []want
			for _, p := range r.Problems {
				got = append(got, want{p.Pointer, p.Message})
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			strict := Validate([]byte(doc), baseFiles, Options{Strict: true})
			if strict.Valid() || len(strict.Errors()) != len(tt.want) {
				t.Errorf("--strict: want %d errors, got %v", len(tt.want), strict.Problems)
			}
		})
	}
}

func TestBadBytes(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	huge := bytes.Repeat([]byte(" "), MaxSize+1)
	tests := []struct {
		name       string
		data       []byte
		wantMsg    string
		wantDetail string
	}{
		{name: "empty", data: nil, wantMsg: "The extension package.json is not valid JSON.", wantDetail: "unexpected end of JSON input"},
		{name: "truncated", data: []byte(base[:40]), wantMsg: "The extension package.json is not valid JSON.", wantDetail: "unexpected end of JSON input"},
		{name: "syntax error has a position", data: []byte("{\n  \"a\": ,\n}"), wantMsg: "The extension package.json is not valid JSON.", wantDetail: "line 2, column 8"},
		{name: "binary", data: []byte{0x00, 0xff, 0xfe, 0x10}, wantMsg: "The extension package.json is not valid JSON.", wantDetail: "not UTF-8"},
		{name: "too deep", data: []byte(deep), wantMsg: "The extension package.json is not valid JSON.", wantDetail: "deeper than 64"},
		{name: "too large", data: huge, wantMsg: "The extension package.json is too large: 1048577 bytes, limit 1048576 bytes."},
		{name: "two documents", data: []byte(`{} {}`), wantMsg: "The extension package.json is not valid JSON."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Validate(tt.data, nil, Options{})
			errs := r.Errors()
			if len(errs) != 1 || errs[0].Message != tt.wantMsg || !strings.Contains(errs[0].Detail, tt.wantDetail) {
				t.Fatalf("got %+v, want %q with detail containing %q", errs, tt.wantMsg, tt.wantDetail)
			}
			if r.Manifest != nil {
				t.Error("no manifest expected")
			}
		})
	}
}

func TestBOMIsAcceptedWithAWarning(t *testing.T) {
	r := Validate(append([]byte("\uFEFF"), base...), baseFiles, Options{})
	if !r.Valid() || len(r.Problems) != 1 || r.Problems[0].Severity != SeverityWarning || !strings.Contains(r.Problems[0].Message, "byte order mark") {
		t.Fatalf("got %+v", r.Problems)
	}
	if r.Manifest.ID != "@example/spirit-extension" {
		t.Errorf("ID = %q", r.Manifest.ID)
	}
}

func TestHost(t *testing.T) {
	r := Validate([]byte(base), baseFiles, Options{Host: "desktop"})
	want := "This extension cannot be installed on the current host: current host is Desktop, but the extension only supports CLI."
	if errs := r.Errors(); len(errs) != 1 || errs[0].Message != want || errs[0].Pointer != "/spiritExtension/supportedHosts" {
		t.Fatalf("got %+v", errs)
	}
	if r := Validate([]byte(base), baseFiles, Options{Host: "cli"}); !r.Valid() {
		t.Fatalf("cli host: %+v", r.Problems)
	}
	var ie *InvalidError
	if !errors.As(r.Err(), &ie) {
		t.Fatalf("Err() = %v", r.Err())
	}
	var p *Problem
	if !errors.As(r.Err(), &p) || p.Message != want {
		t.Errorf("errors.As(*Problem) = %v", p)
	}
}

func TestParsedManifest(t *testing.T) {
	doc := `{
	  "name": " my-ext ", "version": " 1.0.0 ", "main": "./index.js", "type": "module",
	  "author": {"name": " Ann "}, "description": " d ",
	  "spiritExtension": {
	    "displayName": " My ext ", "supportedHosts": [" cli ", "cli", "desktop"],
	    "activationEvents": ["onStartup", " onStartup "],
	    "requestedCapabilities": ["tool-definitions", "tool-execution", "cli-ui", "settings"],
	    "contributes": {
	      "tools": [{"name": "t", "description": "d", "inputSchema": {"type":"object"}, "approvalMode": " need-approval "}],
	      "desktop": {"css": []},
	      "cli": {"hooks": {"path": "hooks.json"}}
	    },
	    "settingsSchema": [{"key": "n", "type": "number", "title": "N", "defaultValue": 2.5, "required": true}]
	  }
	}`
	r := Validate([]byte(doc), baseFiles, Options{})
	if !r.Valid() {
		t.Fatal(r.Problems)
	}
	m := r.Manifest
	want := &Manifest{
		SchemaVersion: 1, ID: "my-ext", Name: "My ext", Version: "1.0.0", Main: "./index.js", Type: "module",
		Author: "Ann", Description: "d",
		SupportedHosts:        []string{"cli", "desktop"},
		ActivationEvents:      []string{"onStartup"},
		RequestedCapabilities: []string{"tool-definitions", "tool-execution", "cli-ui", "settings"},
		Contributes: &Contributes{
			Tools: []Tool{{Name: "t", Description: "d", InputSchema: []byte(`{"type":"object"}`), ApprovalMode: "need-approval"}},
			CLI:   &CLI{HooksPath: "hooks.json", Hooks: []Hook{{Slot: "message.user"}}},
		},
		SettingsSchema: []Setting{{Key: "n", Type: "number", Title: "N", DefaultValue: 2.5, Required: true}},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}
}

func TestDirFSRefusesSymlinkEscapes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("these links need a privilege on Windows (SeCreateSymbolicLinkPrivilege or Developer Mode), and Wine's do not resolve as Windows' do")
	}
	outside := tempdir.New(t)
	if err := os.WriteFile(filepath.Join(outside, "secret.js"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := tempdir.New(t)
	doc := set(t, base, "/main", `"lib/index.js"`)
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(pkg, "lib")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(outside, "secret.js"), filepath.Join(outside, "index.js")); err != nil {
		t.Fatal(err)
	}
	r := Validate([]byte(doc), DirFS(pkg), Options{})
	errs := r.Errors()
	if len(errs) != 1 || errs[0].Message != "Extension main escapes the package through a symlink: lib/index.js" {
		t.Fatalf("got %+v", errs)
	}
	// A symlink that stays inside the package is fine.
	if err := os.Remove(filepath.Join(pkg, "lib")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(pkg, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "real", "index.js"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(pkg, "lib")); err != nil {
		t.Fatal(err)
	}
	if r := Validate([]byte(doc), DirFS(pkg), Options{}); !r.Valid() {
		t.Fatalf("inside symlink: %+v", r.Problems)
	}
}

func TestSchemaIsPublishedAndCompiles(t *testing.T) {
	if _, err := compiledSchema(); err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile("spirit-extension.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, SchemaJSON) {
		t.Error("embedded schema differs from the published file")
	}
}

func TestExampleManifestIsValid(t *testing.T) {
	dir := filepath.Join("..", "testdata", "examples", "lookup-tools")
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := Validate(data, DirFS(dir), Options{Strict: true})
	if len(r.Problems) != 0 {
		t.Fatalf("example has problems: %+v", r.Problems)
	}
	if got := len(r.Manifest.Contributes.CLI.Hooks); got != 1 {
		t.Errorf("hooks = %d", got)
	}
}
