package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fixtureVersion is one published version of a built registry: its
// package.json "spiritExtension" object.
type fixtureVersion struct {
	Version string
	Spirit  map[string]any
}

// fixtureExt is one extension of a built registry.
type fixtureExt struct {
	ID, Package string
	Versions    []fixtureVersion
}

// buildRegistry writes a folder registry for exts into dir: real tarballs
// (package/package.json, package/index.js), their sha512 integrity, a
// catalog and one detail per extension; the default version is the last.
func buildRegistry(t *testing.T, dir string, exts ...fixtureExt) {
	t.Helper()
	var items []map[string]any
	for _, e := range exts {
		var versions []map[string]any
		for _, v := range e.Versions {
			pkg := map[string]any{"name": e.Package, "version": v.Version, "main": "index.js", "spiritExtension": v.Spirit}
			tgz := tarball(t, pkg)
			name := "tarballs/" + e.ID + "-" + v.Version + ".tgz"
			writeFile(t, filepath.Join(dir, name), tgz)
			sum := sha512.Sum512(tgz)
			versions = append(versions, map[string]any{
				"version": v.Version, "channel": "stable", "reviewStatus": "verified",
				"displayName": e.ID, "description": "A fixture.", "author": "Fixture Co",
				"supportedHosts": []string{"cli", "desktop"}, "requestedCapabilities": v.Spirit["requestedCapabilities"],
				"tarballUrl": name, "integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:]),
				"publishedAt": "2026-01-01T00:00:00.000Z", "keywords": []string{"fixture"},
			})
		}
		last := e.Versions[len(e.Versions)-1].Version
		detailPath := "extensions/" + e.ID + "/detail.json"
		writeJSONFile(t, filepath.Join(dir, detailPath), map[string]any{
			"schemaVersion": 1, "extensionId": e.ID, "packageName": e.Package, "status": "listed",
			"defaultVersion": last, "defaultReviewStatus": "verified", "versions": versions, "featured": false,
		})
		items = append(items, map[string]any{
			"extensionId": e.ID, "packageName": e.Package, "status": "listed", "defaultVersion": last,
			"defaultChannel": "stable", "defaultReviewStatus": "verified", "detailPath": detailPath,
			"displayName": e.ID, "description": "A fixture.", "author": "Fixture Co",
			"supportedHosts": []string{"cli", "desktop"}, "featured": false, "keywords": []string{"fixture"},
		})
	}
	writeJSONFile(t, filepath.Join(dir, "catalog.json"), map[string]any{"schemaVersion": 1, "items": items})
}

func tarball(t *testing.T, pkg map[string]any) []byte {
	t.Helper()
	manifest, err := json.MarshalIndent(pkg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		data []byte
	}{{"package/package.json", manifest}, {"package/index.js", []byte("export function activate() {}\n")}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSONFile(t *testing.T, name string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, name, data)
}

// requestLog counts the requests of a test server by path.
type requestLog struct {
	mu    sync.Mutex
	paths map[string]int
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		if l.paths == nil {
			l.paths = map[string]int{}
		}
		l.paths[r.URL.Path]++
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// tarballs returns how many tarball requests were made, by path.
func (l *requestLog) tarballs() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for p, n := range l.paths {
		if strings.HasSuffix(p, ".tgz") {
			out[p] = n
		}
	}
	return out
}

// helloSpirit is a minimal spiritExtension object with the given
// capabilities and tools (name → approval mode, "" for none).
func helloSpirit(caps []string, tools map[string]string) map[string]any {
	s := map[string]any{"displayName": "Fixture", "supportedHosts": []string{"cli", "desktop"}, "requestedCapabilities": caps}
	var ts []map[string]any
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		mode := tools[name]
		tool := map[string]any{"name": name, "description": "A tool.", "inputSchema": map[string]any{"type": "object"}}
		if mode != "" {
			tool["approvalMode"] = mode
		}
		ts = append(ts, tool)
	}
	if len(ts) > 0 {
		s["contributes"] = map[string]any{"tools": ts}
	}
	return s
}
