package install

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/install/internal/corpus"
)

// BenchmarkExtractTgz unpacks a .tgz into a fresh directory per run (the
// files are deleted only with the benchmark's temp dir): a source-like
// package of 600 files of text and a 20 MB one of 2,000 random files.
func BenchmarkExtractTgz(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) string {
		var s strings.Builder
		for s.Len() < n {
			w := make([]byte, 6)
			for i := range w {
				w[i] = byte(rng.IntN(256))
			}
			s.WriteString(base64.RawURLEncoding.EncodeToString(w))
			s.WriteByte(' ')
		}
		return s.String()
	}
	random := func(n int) string {
		w := make([]byte, n)
		for i := range w {
			w[i] = byte(rng.IntN(256))
		}
		return string(w)
	}
	for _, tc := range []struct {
		name  string
		files int
		body  func(int) string
		size  int
	}{{"text600", 600, text, 11_600}, {"random2000", 2000, random, 10_000}} {
		files := corpus.Package("package/", corpus.ID, "1.0.0", 0)
		for i := len(files); i < tc.files; i++ {
			files = append(files, corpus.File{Name: fmt.Sprintf("package/lib/%02d/f%04d.js", i%40, i), Body: tc.body(tc.size)})
		}
		src := filepath.Join(b.TempDir(), "a.tgz")
		if err := os.WriteFile(src, corpus.Tgz(files), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			base := b.TempDir()
			i := 0
			for b.Loop() {
				dir := filepath.Join(base, fmt.Sprint(i))
				i++
				if err := os.Mkdir(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				s, err := newRootSink(dir)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := extract(context.Background(), src, FormatTgz, s, nil, discard{}); err != nil {
					b.Fatal(err)
				}
				s.close()
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
