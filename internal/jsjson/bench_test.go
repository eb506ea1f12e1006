package jsjson

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParse reads documents of the sizes Parse meets: an extension's
// package.json (tool schemas are parts of it) and tool arguments.
func BenchmarkParse(b *testing.B) {
	manifest, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "lookup-tools", "package.json"))
	if err != nil {
		b.Fatal(err)
	}
	args := `{"query":"weather in Zürich","limit":10,"filters":{"since":"2026-01-01","tags":["a","b"]},"verbose":true,"note":"line\nbreak \u2028"}`
	for name, data := range map[string][]byte{"package.json": manifest, "arguments": []byte(args)} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var err error
			for b.Loop() {
				_, err = Parse(data)
			}
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
