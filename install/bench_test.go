package install_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/install/internal/corpus"
	"github.com/spiritagents/spirit/paths"
)

// BenchmarkInstall measures one replace install of a package of 200 small
// files and one 8 MiB file, from a .tgz and from a .zip, with integrity
// checked.
func BenchmarkInstall(b *testing.B) {
	files := corpus.Package("package/", corpus.ID, "1.0.0", 200)
	rng := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = 'a' + byte(rng.IntN(26))
	}
	files = append(files, corpus.File{Name: "package/dist/big.js", Body: string(big)})
	zipFiles := make([]corpus.File, len(files))
	for i, f := range files {
		f.Name = strings.TrimPrefix(f.Name, "package/")
		zipFiles[i] = f
	}
	dir := b.TempDir()
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"tgz", corpus.Tgz(files)},
		{"zip", corpus.Zip(zipFiles)},
	} {
		b.Run(c.name, func(b *testing.B) {
			src := filepath.Join(dir, "pkg."+c.name)
			if err := os.WriteFile(src, c.data, 0o644); err != nil {
				b.Fatal(err)
			}
			in := &install.Installer{Paths: paths.New(filepath.Join(dir, "data-"+c.name), paths.HostCLI)}
			ctx := context.Background()
			res, err := in.Install(ctx, install.Request{Path: src, Replace: true})
			if err != nil {
				b.Fatal(err)
			}
			req := install.Request{Path: src, Replace: true, Integrity: res.Record.Integrity}
			b.SetBytes(int64(len(c.data)))
			b.ResetTimer()
			for b.Loop() {
				if _, err := in.Install(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
