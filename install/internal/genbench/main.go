// Command genbench writes a benchmark tarball in the npm layout.
//
//	genbench [-files N] [-text] OUT.tgz
//
// By default: 2,000 files of 10,000 random bytes (about 20 MB after gzip).
// With -text, every file is about 11.6 KB of source-like text that
// compresses like real code (the "large" package of scripts/bench-npm.sh
// is 600 such files).
package main

import (
	"encoding/base64"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/spiritagents/spirit/install/internal/corpus"
)

func main() {
	n := flag.Int("files", 2000, "number of files in the package")
	text := flag.Bool("text", false, "source-like text of ~11.6 KB per file instead of 10,000 random bytes")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genbench [-files N] [-text] OUT.tgz")
		os.Exit(2)
	}
	files := corpus.Package("package/", "bench-ext", "1.0.0", 0)
	rng := rand.New(rand.NewPCG(7, 7))
	for i := len(files); i < *n; i++ {
		body := randomBody(rng)
		if *text {
			body = textBody(rng, i)
		}
		files = append(files, corpus.File{Name: fmt.Sprintf("package/lib/%02d/mod-%04d.js", i%40, i), Body: body})
	}
	if err := os.WriteFile(flag.Arg(0), corpus.Tgz(files), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// randomBody is 10,000 incompressible bytes: the packed size is the
// unpacked size.
func randomBody(rng *rand.Rand) string {
	b := make([]byte, 10_000)
	for j := range b {
		b[j] = byte(rng.IntN(256))
	}
	return string(b)
}

// textBody is a module of about 11.6 KB of random words, as in
// scripts/bench-npm.sh: it compresses like source code, not like zeros.
func textBody(rng *rand.Rand, i int) string {
	var words strings.Builder
	w := make([]byte, 6)
	for words.Len() < 11_600 {
		for j := range w {
			w[j] = byte(rng.IntN(256))
		}
		if words.Len() > 0 {
			words.WriteByte(' ')
		}
		words.WriteString(base64.RawURLEncoding.EncodeToString(w))
	}
	return fmt.Sprintf("// %d\nexport const v = %q;\n", i, words.String())
}
