package registry

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/registry/registrytest"
)

// benchLatency is added to every npm request of the benchmarks.
const benchLatency = 20 * time.Millisecond

// benchRepo writes n entries of three versions each under a temporary root
// and returns it with the packuments to serve.
func benchRepo(b *testing.B, n int) (string, map[string][]byte) {
	b.Helper()
	root := b.TempDir()
	docs := map[string][]byte{}
	for i := range n {
		id := fmt.Sprintf("bench.ext-%05d", i)
		pkg := fmt.Sprintf("@bench/ext-%05d", i)
		dir := filepath.Join(root, "registry", "extensions", id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		entry := fmt.Sprintf(`{"$schema":"../../../schemas/marketplace-entry.schema.json","schemaVersion":1,"extensionId":%q,"packageName":%q,"status":"listed","featured":false,"defaultVersion":"1.1.0","defaultReviewStatus":"verified","versions":[{"version":"1.2.0-beta.1","channel":"preview","reviewStatus":"unverified"},{"version":"1.1.0","channel":"stable","reviewStatus":"verified","changelog":{"summary":"Fixes","body":"- Fixes things."}},{"version":"1.0.0","channel":"stable","reviewStatus":"verified"}]}`, id, pkg)
		if err := os.WriteFile(filepath.Join(dir, "entry.json"), []byte(entry), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# "+id+"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		versions, times := "", `"created":"2026-01-01T00:00:00.000Z"`
		for j, v := range []string{"1.0.0", "1.1.0", "1.2.0-beta.1", "0.9.0"} {
			if j > 0 {
				versions += ","
			}
			versions += fmt.Sprintf(`%q:{"name":%q,"version":%q,"description":"Benchmark extension number %d, a reasonably long description.","author":{"name":"Bench Author","email":"a@example.com"},"homepage":"https://example.com/%d","repository":{"type":"git","url":"git+https://github.com/bench/ext-%d.git"},"keywords":["spirit-agent","bench","tools"],"main":"dist/index.js","spiritExtension":{"schemaVersion":1,"id":%q,"displayName":"Bench %d","icon":"./icon.png","supportedHosts":["cli","desktop"],"requestedCapabilities":["tool-definitions","tool-execution"]},"dist":{"tarball":"https://registry.example/%s/-/x-%s.tgz","integrity":"sha512-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","shasum":"0123456789abcdef0123456789abcdef01234567"}}`,
				v, pkg, v, i, i, i, id, i, pkg, v)
			times += fmt.Sprintf(`,%q:"2026-0%d-01T00:00:00.000Z"`, v, j+1)
		}
		docs[pkg] = fmt.Appendf(nil, `{"_id":%q,"name":%q,"dist-tags":{"latest":"1.1.0"},"versions":{%s},"time":{%s},"readme":"# Bench"}`, pkg, pkg, versions, times)
	}
	return root, docs
}

func benchNPM(b *testing.B, url, cache string, jobs int) *npm.Client {
	b.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = jobs
	c, err := npm.NewClient(npm.Config{Registry: url + "/", CacheDir: cache, HTTPClient: &http.Client{Transport: tr},
		Getenv: func(string) string { return "" }, HomeDir: cache, WorkDir: cache})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkRegistry measures the builder against an npm registry that adds
// 20 ms to every request, with -j 16: a cold build (no cache, no outputs),
// a rebuild where nothing changed (every packument answered with 304), and
// the offline validation, at 1,000 entries × 3 versions; and a cold build of
// 10,000 entries.
func BenchmarkRegistry(b *testing.B) {
	schemas, err := CompileSchemas()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1000, 10000} {
		root, docs := benchRepo(b, n)
		srv := registrytest.NewServer(docs, benchLatency)
		build := func(b *testing.B, cache string) *BuildResult {
			res, err := Build(context.Background(), BuildOptions{Root: root, NPM: benchNPM(b, srv.URL, cache, 16), Jobs: 16, Schemas: schemas})
			if err != nil {
				b.Fatal(err)
			}
			return res
		}
		clean := func(b *testing.B) {
			b.Helper()
			if err := os.Remove(filepath.Join(root, "registry", "catalog.json")); err != nil && !os.IsNotExist(err) {
				b.Fatal(err)
			}
			files, err := findFiles(root, "detail.json")
			if err != nil {
				b.Fatal(err)
			}
			for _, f := range files {
				_ = os.Remove(f)
			}
		}
		b.Run(fmt.Sprintf("build-cold/entries=%d", n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				clean(b)
				cache := b.TempDir()
				b.StartTimer()
				if res := build(b, cache); len(res.Written) != n+1 {
					b.Fatalf("wrote %d files", len(res.Written))
				}
			}
		})
		if n > 1000 {
			srv.Close()
			continue
		}
		cache := b.TempDir()
		build(b, cache)
		b.Run(fmt.Sprintf("rebuild-304/entries=%d", n), func(b *testing.B) {
			for b.Loop() {
				before := srv.NotModified.Load()
				if res := build(b, cache); len(res.Written) != 0 || res.Unchanged != n+1 {
					b.Fatalf("rebuild changed files: %+v", res.Written)
				}
				if got := srv.NotModified.Load() - before; got != int64(n) {
					b.Fatalf("%d 304s, want %d", got, n)
				}
			}
		})
		b.Run(fmt.Sprintf("validate/entries=%d", n), func(b *testing.B) {
			for b.Loop() {
				ps, err := Validate(ValidateOptions{Root: root, Schemas: schemas})
				if err != nil || len(ps) > 0 {
					b.Fatalf("%v %v", err, ps)
				}
			}
		})
		srv.Close()
	}
}

// BenchmarkParseValue measures the JSON reader alone on the documents a
// build reads most: a packument of four versions and an entry.
func BenchmarkParseValue(b *testing.B) {
	root, docs := benchRepo(b, 1)
	entry, err := os.ReadFile(filepath.Join(root, "registry", "extensions", "bench.ext-00000", "entry.json"))
	if err != nil {
		b.Fatal(err)
	}
	for name, data := range map[string][]byte{"packument": docs["@bench/ext-00000"], "entry": entry} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseValue(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
