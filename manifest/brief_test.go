package manifest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// briefOptions are the options under which Validate may take briefManifest:
// those of `extension list` (Installed) and every other with Trusted and
// NoToolSchemas.
var briefOptions = []Options{
	{Installed: true, Trusted: true, NoToolSchemas: true},
	{Trusted: true, NoToolSchemas: true},
	{Installed: true, Trusted: true, NoToolSchemas: true, Host: "cli"},
	{Trusted: true, NoToolSchemas: true, Host: "desktop", Strict: true},
}

// briefCases are documents briefManifest reads (true) or leaves to the
// generic way (false). Each is a change to helloTools.
var briefCases = []struct {
	doc  string
	read bool
}{
	{helloTools, true},
	{strings.Replace(helloTools, `"type": "module",`, `"type": "module", "license": "MIT", "scripts": {"x": [1, {"y": null}]}, "keywords": ["a"], "private": true,`, 1), true},
	{strings.Replace(helloTools, `"type": "module",`, `"type": "module", "license": "MIT", "license": 1,`, 1), false},
	{strings.Replace(helloTools, `"version": "1.0.0"`, `"version": "1.0"`, 1), true},
	{strings.Replace(helloTools, `"version": "1.0.0"`, `"version": 1`, 1), true},
	{strings.Replace(helloTools, `"description": "A small example extension: one tool and a system prompt."`, `"description": null, "homepage": " https://x.example ", "author": " Ann "`, 1), true},
	{strings.Replace(helloTools, `"type": "module",`, `"author": {"name": "\uFEFF Ann\u0020"},`, 1), true},
	{strings.Replace(helloTools, `"type": "module",`, `"author": {"name": 7},`, 1), true},
	{strings.Replace(helloTools, `"type": "module",`, `"author": ["Ann"],`, 1), true},
	{strings.Replace(helloTools, `"type": "module",`, `"author": {"name": "Ann", "email": "a@example.com"},`, 1), false},
	{strings.Replace(helloTools, `"name": "hello-tools"`, `"n\u0061me": "hello-\u0074ools"`, 1), true},
	{strings.Replace(helloTools, `"name": "hello-tools"`, `"name": "hello-tools", "name": "other"`, 1), false},
	{strings.Replace(helloTools, `"name": "hello-tools"`, `"name": "UPPER Case"`, 1), true},
	{strings.Replace(helloTools, `"name": "hello-tools",`, ``, 1), true},
	{strings.Replace(helloTools, `"type": "module",`, `"descripton": "typo",`, 1), false},
	{strings.Replace(helloTools, `"type": "module",`, `"whatever": "far from every field",`, 1), false},
	{strings.Replace(helloTools, `"type": "module",`, `"type": 1,`, 1), false},
	{strings.Replace(helloTools, `"type": "module",`, ``, 1), true},
	{strings.Replace(helloTools, `"main": "index.mjs"`, `"main": "../index.mjs"`, 1), true},
	{strings.Replace(helloTools, `"main": "index.mjs"`, `"main": "./missing.mjs"`, 1), true},
	{strings.Replace(helloTools, `"main": "index.mjs"`, `"main": {"a": 1}`, 1), true},
	{strings.Replace(helloTools, `"main": "index.mjs",`, ``, 1), true},
	{strings.Replace(helloTools, `"displayName": "Hello Tools"`, `"displayName": "  Hello\u3000", "icon": "C:/icon.png", "schemaVersion": "x"`, 1), true},
	{strings.Replace(helloTools, `"displayName": "Hello Tools"`, `"icon": "assets/icon.svg", "schemaVersion": 2`, 1), true},
	{strings.Replace(helloTools, `"supportedHosts": ["cli", "desktop"]`, `"supportedHosts": []`, 1), true},
	{strings.Replace(helloTools, `"supportedHosts": ["cli", "desktop"]`, `"supportedHosts": [" desktop", "desktop ", "cli"]`, 1), true},
	{strings.Replace(helloTools, `"supportedHosts": ["cli", "desktop"]`, `"supportedHosts": ["web"]`, 1), true},
	{strings.Replace(helloTools, `"supportedHosts": ["cli", "desktop"],`, ``, 1), false},
	{strings.Replace(helloTools, `"supportedHosts": ["cli", "desktop"]`, `"supportedHosts": "cli"`, 1), false},
	{strings.Replace(helloTools, `"supportedHosts": ["cli", "desktop"]`, `"supportedHosts": null`, 1), false},
	{strings.Replace(helloTools, `"requestedCapabilities": ["tool-definitions", "tool-execution", "system-prompt"]`, `"requestedCapabilities": "all", "activationEvents": {"a": 1}`, 1), true},
	{strings.Replace(helloTools, `"requestedCapabilities": ["tool-definitions", "tool-execution", "system-prompt"]`, `"requestedCapabilities": ["desktop-ui", "cli-ui", "secret-storage", "x", "x"], "activationEvents": ["onStartup", " onStartup "]`, 1), true},
	{strings.Replace(helloTools, `"requestedCapabilities": ["tool-definitions", "tool-execution", "system-prompt"]`, `"requestedCapabilities": [1]`, 1), false},
	{strings.Replace(helloTools, `"spiritExtension": {`, `"spiritExtension": {"settingsSchema": [],`, 1), false},
	{strings.Replace(helloTools, `"spiritExtension": {`, `"spiritExtension": {"secretSlots": [],`, 1), false},
	{strings.Replace(helloTools, `"spiritExtension": {`, `"spiritExtension": {"contributes": {}, "x": 1,`, 1), false},
	{strings.Replace(helloTools, `"contributes": {`, `"contributes": {"desktop": null,`, 1), false},
	{strings.Replace(helloTools, `"contributes": {`, `"contributes": {"cli": {"hooks": null},`, 1), false},
	{strings.Replace(helloTools, `"tools": [`, `"tools": [1, `, 1), false},
	{strings.Replace(helloTools, `"tools": [`, `"tools": [[], `, 1), false},
	{strings.Replace(helloTools, `"tools": [`, `"tools": [{"name": " t ", "outputSchema": null, "approvalMode": " allowed", "executionMode": 7, "inputSchema": [1]}, {}, `, 1), true},
	{strings.Replace(helloTools, `"tools": [`, `"tools": [{"name": "t", "nmae": "typo"}, `, 1), false},
	{strings.Replace(helloTools, `"tools": [`, `"tools": [{"name": "t", "name": "u"}, `, 1), false},
	{`{"name":"a","version":"1.0.0","spiritExtension":{"displayName":"A","supportedHosts":["cli"],"contributes":{"tools":{}}}}`, true},
	{`{"name":"a","version":"1.0.0","spiritExtension":{"displayName":"A","supportedHosts":["cli"],"contributes":[]}}`, true},
	{`{"name":"a","version":"1.0.0","spiritExtension":{"displayName":"A","supportedHosts":["cli"],"contributes":{"tools":[]}}}`, true},
	{`{"name":"a","version":"1.0.0","spiritExtension":{"displayName":"A","supportedHosts":["cli"],"contributes":{"tools":[{"name":"x"}]}}}`, true},
	{`{"name":"a","version":"1.0.0","spiritExtension":{"displayName":"A","supportedHosts":["cli"]}}` + " \n\t", true},
	{`{"name":"a","version":"1.0.0","spiritExtension":{"displayName":"A","supportedHosts":["cli"]}} {}`, false},
	{`{"name":"a","version":"1.0.0","spiritExtension":{"displayName":"A","supportedHosts":["cli"]},`, false},
	{`{"name":"a","version":"1.0.0","spiritExtension":[]}`, false},
	{`{"name":"a","version":"1.0.0"}`, false},
	{`{"name":"a","config":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `,"spiritExtension":{"supportedHosts":["cli"]}}`, false},
	{`{"name":"a","config":` + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + `,"spiritExtension":{"supportedHosts":["cli"]}}`, true},
	{"\uFEFF" + `{"name":"a","version":"1.0.0","spiritExtension":{"displayName":"A","supportedHosts":["cli"]}}`, false},
	{`{"name":"a` + "\xff" + `","version":"1.0.0","spiritExtension":{"displayName":"A","supportedHosts":["cli"]}}`, false},
	{`{"name":"\ud800","version":"1.0.0","spiritExtension":{"displayName":"A","supportedHosts":["cli"]}}`, true},
	{`["name"]`, false},
	{`"name"`, false},
	{``, false},
}

var helloTools = func() string {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "examples", "hello-tools", "package.json"))
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// briefFS is a package for the file rules: main and an icon exist, a
// directory stands where a file is named.
var briefFS = fstest.MapFS{
	"index.mjs":       {Data: []byte("export {}")},
	"assets/icon.svg": {Data: []byte("<svg/>")},
	"missing.mjs":     {Mode: fs.ModeDir},
}

// TestBriefManifestIsValidate: where briefManifest reads a document,
// Validate reports exactly what the generic way reports, manifest and
// problems, under every option that lets it; and it reads the documents
// extensions usually are, leaving the rest to the generic way.
func TestBriefManifestIsValidate(t *testing.T) {
	for i, c := range briefCases {
		if _, read := briefManifest([]byte(c.doc)); read != c.read {
			t.Errorf("case %d: briefManifest read it: %v, want %v\n%s", i, read, c.read, c.doc)
		}
		for _, fsys := range []fs.FS{nil, briefFS} {
			for _, opts := range briefOptions {
				if diff := briefDiff([]byte(c.doc), fsys, opts); diff != "" {
					t.Errorf("case %d, %+v, files %v: (-generic +brief)\n%s\n%s", i, opts, fsys != nil, diff, c.doc)
				}
			}
		}
	}
}

// Every package.json of the repository's test data, read from its folder.
func TestBriefManifestIsValidateOnTestdata(t *testing.T) {
	read := 0
	for _, root := range []string{filepath.Join("..", "testdata"), filepath.Join("..", "internal", "cli", "testdata")} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.Name() != "package.json" {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if _, ok := briefManifest(data); ok {
				read++
			}
			dir, err := filepath.Abs(filepath.Dir(path))
			if err != nil {
				return err
			}
			for _, opts := range briefOptions {
				if diff := briefDiff(data, DirFS(dir), opts); diff != "" {
					t.Errorf("%s, %+v: (-generic +brief)\n%s", path, opts, diff)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if read < 20 {
		t.Errorf("briefManifest read only %d package.json of the test data", read)
	}
}

// briefDiff validates data both ways and returns their difference. The
// generic way panics on some tampered trusted documents (a supportedHosts
// item that is not a string); briefManifest must never read those.
func briefDiff(data []byte, fsys fs.FS, opts Options) (diff string) {
	defer func() {
		if p := recover(); p != nil {
			if _, read := briefManifest(data); read {
				diff = fmt.Sprintf("the generic way panicked: %v", p)
			}
		}
	}()
	generic := validate(data, fsys, opts, false)
	brief := validate(data, fsys, opts, true)
	return cmp.Diff(generic, brief)
}

// FuzzBriefManifest holds briefManifest to the generic way on any bytes.
func FuzzBriefManifest(f *testing.F) {
	for _, c := range briefCases {
		f.Add([]byte(c.doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range briefOptions[:2] {
			if diff := briefDiff(data, briefFS, opts); diff != "" {
				t.Fatalf("%+v: (-generic +brief)\n%s", opts, diff)
			}
		}
	})
}
