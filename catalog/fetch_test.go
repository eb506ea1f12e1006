package catalog

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// Every document and tarball of an https index refuses a redirect to
// plain http: catalog.json, detail.json (which carries the integrity),
// the README and the tarball.
func TestNoDowngradeToHTTP(t *testing.T) {
	plain := newRegistryServer(t, fixtureRoot) // what an attacker on the path would serve
	tests := []struct {
		name     string
		redirect string // path prefix the https index sends to plain http
		step     func(ctx context.Context, c *Client) error
	}{
		{"catalog", "/catalog.json", func(ctx context.Context, c *Client) error { _, err := c.Catalog(ctx); return err }},
		{"detail", "/extensions/fixture.hello/detail.json", func(ctx context.Context, c *Client) error {
			_, _, err := c.Detail(ctx, "fixture.hello")
			return err
		}},
		{"readme", "/extensions/fixture.hello/README.md", func(ctx context.Context, c *Client) error {
			_, _, err := c.Readme(ctx, "fixture.hello")
			return err
		}},
		{"tarball", "/tarballs/", func(ctx context.Context, c *Client) error {
			p, err := c.Prepare(ctx, "fixture.hello", Selector{})
			if err != nil {
				t.Fatalf("prepare: %v", err)
			}
			_, err = c.Tarball(ctx, p, false)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, tt.redirect) {
					http.Redirect(w, r, plain.URL+r.URL.Path, http.StatusFound)
					return
				}
				data, err := os.ReadFile(filepath.Join(fixtureRoot, filepath.FromSlash(path.Clean(r.URL.Path))))
				if err != nil {
					http.NotFound(w, r)
					return
				}
				w.Write(data)
			}))
			defer srv.Close()
			c := newClient(t, srv.URL+"/", tempdir.New(t), func(o *Options) { o.HTTPClient = srv.Client() })
			err := tt.step(context.Background(), c)
			if !errors.Is(err, fetch.ErrInsecureRedirect) || !strings.Contains(err.Error(), plain.URL) {
				t.Fatalf("err = %v", err)
			}
			if n := plain.TotalHits(); n != 0 {
				t.Errorf("the http server was asked %d times", n)
			}
		})
	}
}
