package manifest

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// BenchmarkValidateExample validates the full example manifest (tools,
// settings, secrets, desktop and CLI contributions, files on disk read from
// memory) after the schema is compiled. Run with -cpu 1 for manifests/s on one core.
func BenchmarkValidateExample(b *testing.B) {
	dir := filepath.Join("..", "testdata", "examples", "lookup-tools")
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		b.Fatal(err)
	}
	fsys := memCopy(b, dir)
	if _, err := compiledSchema(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if r := Validate(data, fsys, Options{}); !r.Valid() {
			b.Fatal(r.Problems)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "manifests/s")
}

func memCopy(b *testing.B, dir string) mapFS {
	out := mapFS{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkValidateTrusted is what list, tools and info do for each
// installed extension whose package.json is the one recorded at install:
// no schema pass, the files checked on disk.
func BenchmarkValidateTrusted(b *testing.B) {
	dir := filepath.Join("..", "testdata", "examples", "lookup-tools")
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		b.Fatal(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if r := Validate(data, DirFS(abs), Options{Installed: true, Trusted: true}); !r.Valid() {
			b.Fatal(r.Problems)
		}
	}
}
