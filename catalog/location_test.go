package catalog

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// A catalog.json that is not where the source says fails with an error
// that names where it was looked for, and a hint that says where it
// should be.
func TestCatalogLocationHints(t *testing.T) {
	repo := tempdir.New(t) // a registry repository, built
	if err := os.MkdirAll(filepath.Join(repo, "registry", "extensions"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "registry", "catalog.json"), []byte(`{"schemaVersion":1,"items":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	unbuilt := tempdir.New(t) // a registry repository never built
	if err := os.MkdirAll(filepath.Join(unbuilt, "registry", "extensions"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	tests := []struct {
		name, source, wantErr, wantHint string
	}{
		{name: "repository root", source: repo, wantErr: filepath.Join(repo, "catalog.json"),
			wantHint: "catalog.json is in the registry folder of the repository: --registry " + filepath.Join(repo, "registry")},
		{name: "catalog.json itself", source: filepath.Join(repo, "registry", "catalog.json"), wantErr: "catalog.json",
			wantHint: "not the file: --registry " + filepath.Join(repo, "registry")},
		{name: "not built", source: unbuilt, wantErr: filepath.Join(unbuilt, "catalog.json"),
			wantHint: "run spirit registry build --root " + unbuilt},
		{name: "not built, registry folder", source: filepath.Join(unbuilt, "registry"), wantErr: "catalog.json",
			wantHint: "run spirit registry build --root " + unbuilt},
		{name: "empty folder", source: tempdir.New(t), wantErr: "catalog.json", wantHint: "is the folder that holds catalog.json"},
		{name: "URL 404", source: srv.URL + "/nope/", wantErr: "marketplace catalog fetch failed: 404 Not Found (" + srv.URL + "/nope/catalog.json)",
			wantHint: "the URL of the folder that serves catalog.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, tt.source, "", nil)
			_, err := c.Catalog(t.Context())
			var le *CatalogLocationError
			if !errors.As(err, &le) {
				t.Fatalf("error %v (%T), want a *CatalogLocationError", err, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(le.Hint(), tt.wantHint) {
				t.Errorf("error %q\nhint %q\nwant %q and %q", err, le.Hint(), tt.wantErr, tt.wantHint)
			}
		})
	}
}
