package jsontok

import (
	"os"
	"path/filepath"
	"testing"
)

func benchData(b *testing.B) []byte {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "lookup-tools", "package.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	return data
}

// BenchmarkScan reads every token of the example package.json.
func BenchmarkScan(b *testing.B) {
	data := benchData(b)
	for b.Loop() {
		s := NewScanner(data, 64)
		for {
			t, err := s.Next()
			if err != nil {
				b.Fatal(err)
			}
			if t.Kind == End {
				break
			}
		}
	}
}

// BenchmarkDecode builds the example package.json as encoding/json's values.
func BenchmarkDecode(b *testing.B) {
	data := benchData(b)
	for b.Loop() {
		if _, err := Decode[any](data, 64, GoValues{}); err != nil {
			b.Fatal(err)
		}
	}
}
