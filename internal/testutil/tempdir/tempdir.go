// Package tempdir gives a test a temporary directory, as t.TempDir does,
// removed at the end with rmtree.Remove instead of os.RemoveAll, so that
// the cleanup holds where Go's RemoveAll is refused (Wine 8 runs the
// Windows test binaries that way; see package rmtree).
package tempdir

import (
	"os"
	"testing"

	"github.com/spiritagents/spirit/internal/rmtree"
)

// New makes a fresh directory for t and removes it, with everything in
// it, when t and its subtests end. A failed removal fails t.
func New(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "spirit-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := rmtree.Remove(dir); err != nil {
			t.Errorf("tempdir cleanup: %v", err)
		}
	})
	return dir
}
