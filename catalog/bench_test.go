package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BigCatalog returns a catalog.json of n items shaped like the real one.
func bigCatalog(n int) []byte {
	items := make([]map[string]any, n)
	for i := range items {
		id := fmt.Sprintf("vendor%04d.extension-%05d", i%997, i)
		items[i] = map[string]any{
			"extensionId": id, "packageName": fmt.Sprintf("@vendor%04d/extension-%05d", i%997, i),
			"status": []string{"listed", "listed", "listed", "hidden", "deprecated", "blocked"}[i%6], "featured": i%50 == 0,
			"defaultVersion": fmt.Sprintf("%d.%d.0", i%5, i%13), "defaultChannel": "stable", "defaultReviewStatus": "verified",
			"detailPath":  "extensions/" + id + "/detail.json",
			"displayName": fmt.Sprintf("Extension number %d", i),
			"description": fmt.Sprintf("Extension %d adds tools and a system prompt for workflow %d of team %d.", i, i%31, i%7),
			"author":      fmt.Sprintf("Vendor %d", i%997), "homepageUrl": "https://example.com/" + id,
			"repositoryUrl":  "https://github.com/example/" + id,
			"keywords":       []string{"spirit-agent", "extension", fmt.Sprintf("topic-%d", i%101)},
			"supportedHosts": []string{"cli", "desktop"}, "requestedCapabilities": []string{"system-prompt", "tool-definitions"},
		}
	}
	b, _ := json.MarshalIndent(map[string]any{"schemaVersion": 1, "items": items}, "", "  ")
	return b
}

func BenchmarkParseCatalog10k(b *testing.B) {
	data := bigCatalog(10000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseCatalog(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearch10k(b *testing.B) {
	c, err := ParseCatalog(bigCatalog(10000))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if got := Search(c.Items, "topic-42", false); len(got) == 0 {
			b.Fatal("no match")
		}
	}
}

// BenchmarkListWarmCache10k is `marketplace list` of a 10,000-item catalog
// from an HTTP registry whose response is in the on-disk cache: read the
// cache, parse, search.
func BenchmarkListWarmCache10k(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), bigCatalog(10000), 0o644); err != nil {
		b.Fatal(err)
	}
	srv := newRegistryServerB(b, dir)
	cache := b.TempDir()
	ctx := context.Background()
	if _, err := newClientB(b, srv, cache).Catalog(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		cat, err := newClientB(b, srv, cache).Catalog(ctx)
		if err != nil || !cat.Origin.FromCache {
			b.Fatal(err)
		}
		_ = Search(cat.Items, "", false)
	}
}

func newClientB(b *testing.B, srv string, cache string) *Client {
	c, err := New(Options{Source: srv, CacheDir: cache, MaxAge: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func newRegistryServerB(b *testing.B, root string) string {
	return newRegistryServer(b, root).URL
}
