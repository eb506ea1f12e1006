package cli

import (
	"bytes"
	"strings"
	"testing"

	goldenfile "github.com/spiritagents/spirit/internal/testutil/golden"
)

type iostreamsBufs struct{ in, out, err *bytes.Buffer }

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// golden compares got with the file, or rewrites it with -update.
func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	goldenfile.Check(t, file, got)
}
