package jsjson

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParse reads the example extension's package.json, the size of
// the documents Parse meets (tool schemas, settings, arguments).
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "lookup-tools", "package.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
