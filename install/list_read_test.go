package install

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// fileReader.read returns what os.ReadFile returns, for files smaller and
// larger than its buffer, one after another; and fails where it fails.
func TestFileReaderReadsWholeFiles(t *testing.T) {
	dir := tempdir.New(t)
	var files fileReader
	for _, size := range []int{0, 1, 1000, 64 << 10, 64<<10 + 1, 300 << 10, 10} {
		name := filepath.Join(dir, "f")
		data := bytes.Repeat([]byte("0123456789abcdefg"), size/17+1)[:size]
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := files.read(name)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("size %d: read %d bytes, %v", size, len(got), err)
		}
	}
	for _, name := range []string{filepath.Join(dir, "missing"), dir} {
		if got, err := files.read(name); err == nil {
			t.Errorf("%s: read %d bytes, no error", name, len(got))
		}
		if _, err := os.ReadFile(name); err == nil {
			t.Errorf("%s: os.ReadFile has no error", name)
		}
	}
}
