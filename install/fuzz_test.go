package install_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/install/internal/corpus"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// FuzzReadArchive feeds arbitrary bytes to the ZIP and tarball readers: they
// must return an archive or an error, never panic or hang.
func FuzzReadArchive(f *testing.F) {
	for _, c := range corpus.Cases() {
		if len(c.Data) < 4<<10 {
			f.Add(c.Data, c.Name[:3] == "zip")
		}
	}
	for _, data := range corpus.Good() {
		f.Add(data, data[0] == 'P')
	}
	dir := tempdir.New(f)
	f.Fuzz(func(t *testing.T, data []byte, isZip bool) {
		name := filepath.Join(dir, "in.tgz")
		if isZip {
			name = filepath.Join(dir, "in.zip")
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := install.ReadArchive(name)
		if err == nil && a.Manifest == nil {
			t.Fatal("archive accepted without a package.json")
		}
	})
}
