// Command genbench writes the benchmark tarball: a .tgz of about 20 MB
// holding 2,000 files, in the npm layout. Usage: genbench OUT.tgz
package main

import (
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/spiritagents/spirit/install/internal/corpus"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genbench OUT.tgz")
		os.Exit(2)
	}
	files := corpus.Package("package/", "bench-ext", "1.0.0", 0)
	rng := rand.New(rand.NewPCG(7, 7))
	// 2,000 files of 10,000 random bytes: the tarball stays
	// near 20 MB after gzip.
	for i := len(files); i < 2000; i++ {
		b := make([]byte, 10_000)
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		files = append(files, corpus.File{Name: fmt.Sprintf("package/lib/%02d/mod-%04d.js", i%40, i), Body: string(b)})
	}
	if err := os.WriteFile(os.Args[1], corpus.Tgz(files), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
