package catalog

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// A git index over https whose server redirects to plain http is refused
// before go-git clones anything.
func TestGitRedirectToHTTPRefused(t *testing.T) {
	src, plain, _ := gitRegistry(t)
	target := strings.TrimPrefix(src, "git+")
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer tls.Close()
	repo := "git+" + tls.URL + strings.TrimPrefix(target, plain.URL)
	c := newClient(t, repo, tempdir.New(t), func(o *Options) { o.HTTPClient = tls.Client() })
	_, err := c.Catalog(context.Background())
	if !errors.Is(err, fetch.ErrInsecureRedirect) {
		t.Fatalf("Catalog: %v, want ErrInsecureRedirect", err)
	}
}

// A git index whose URL carries credentials and whose server redirects to
// another origin is refused; the other origin never sees the credentials,
// and no message shows them.
func TestGitRedirectWithCredentialsRefused(t *testing.T) {
	src, other, _ := gitRegistry(t)
	var leaked atomic.Bool
	other.Config.Handler = wrapHandler(other.Config.Handler, func(r *http.Request) {
		if r.Header.Get("Authorization") != "" || strings.Contains(r.URL.String(), "tok_marker_12") {
			leaked.Store(true)
		}
	})
	path := strings.TrimPrefix(strings.TrimPrefix(src, "git+"), other.URL)
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer first.Close()
	repo := "git+" + strings.Replace(first.URL, "http://", "http://alice:tok_marker_12@", 1) + path
	c := newClient(t, repo, tempdir.New(t), nil)
	_, err := c.Catalog(context.Background())
	if !errors.Is(err, ErrGitRedirect) {
		t.Fatalf("Catalog: %v, want ErrGitRedirect", err)
	}
	if strings.Contains(err.Error(), "tok_marker_12") {
		t.Errorf("the error shows the credentials: %v", err)
	}
	if leaked.Load() {
		t.Error("the credentials reached the other origin")
	}

	// Without credentials, the same redirect is followed.
	anon := newClient(t, "git+"+first.URL+path, tempdir.New(t), nil)
	if _, err := anon.Catalog(context.Background()); err != nil {
		t.Fatalf("anonymous index behind a redirect: %v", err)
	}
}

func wrapHandler(h http.Handler, see func(*http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		see(r)
		h.ServeHTTP(w, r)
	})
}
