package site

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/catalog"
)

// synthetic writes an index of n extensions, each with three versions and
// a README of a few kilobytes.
func synthetic(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	var items []map[string]any
	readme := "# Title\n\n" + strings.Repeat("Some *text* with a [link](https://example.org/) and `code`.\n\n", 60) +
		"| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nconsole.log(1)\n```\n"
	for i := range n {
		id := fmt.Sprintf("bench.ext%04d", i)
		var versions []map[string]any
		for _, v := range []string{"1.0.0", "1.1.0", "2.0.0-beta.1"} {
			ch := "stable"
			if strings.Contains(v, "beta") {
				ch = "preview"
			}
			versions = append(versions, map[string]any{"version": v, "channel": ch, "reviewStatus": "verified",
				"displayName": "Ext " + id, "description": "A benchmark extension.", "supportedHosts": []string{"cli", "desktop"},
				"changelog": map[string]any{"summary": "Changes", "body": "- one\n- two"}})
		}
		detail := map[string]any{"schemaVersion": 1, "extensionId": id, "packageName": "@bench/" + id, "status": "listed",
			"featured": i%50 == 0, "defaultVersion": "1.1.0", "readmePath": "extensions/" + id + "/README.md", "versions": versions}
		items = append(items, map[string]any{"extensionId": id, "packageName": "@bench/" + id, "status": "listed", "featured": i%50 == 0,
			"defaultVersion": "1.1.0", "defaultChannel": "stable", "defaultReviewStatus": "verified",
			"detailPath": "extensions/" + id + "/detail.json", "displayName": "Ext " + id, "description": "A benchmark extension.",
			"supportedHosts": []string{"cli", "desktop"}, "keywords": []string{"k" + fmt.Sprint(i%20)}})
		write(b, filepath.Join(dir, "extensions", id, "detail.json"), detail)
		if err := os.WriteFile(filepath.Join(dir, "extensions", id, "README.md"), []byte(readme), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write(b, filepath.Join(dir, "catalog.json"), map[string]any{"schemaVersion": 1, "items": items})
	return dir
}

func write(b *testing.B, name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkBuild1000 builds the site of 1000 extensions into a fresh
// folder (reading, rendering, sanitizing and writing every page).
func BenchmarkBuild1000(b *testing.B) {
	dir := synthetic(b, 1000)
	for b.Loop() {
		src, err := catalog.New(catalog.Options{Source: dir})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Build(context.Background(), Options{Source: src, Out: b.TempDir()}); err != nil {
			b.Fatal(err)
		}
	}
}
