package catalog

import (
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/statichost"
)

// newRegistryServer serves a registry folder over plain HTTP GET, as a
// static host does: a strong ETag per file, 304 on If-None-Match,
// Content-Length (package statichost, shared with the CLI tests).
func newRegistryServer(t testing.TB, root string) *statichost.Server {
	t.Helper()
	return statichost.New(t, root)
}
