package npm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/fetch/fetchtest"
)

// A token scoped to //127.0.0.1:A/path/ is sent to A, and not to the same
// host on another port B when A redirects the tarball there (net/http
// keeps Authorization on a same-host redirect whatever the port).
func TestTokenNotSentAcrossPorts(t *testing.T) {
	const token = "s3cr3t-token"
	other := newFakeRegistry(t) // port B
	other.publish("@corp/ext", map[string]string{"latest": "1.0.0"}, "1.0.0")
	var mu sync.Mutex
	var frontAuths []string
	var front *httptest.Server // port A
	front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/-/npm/v1/keys") {
			http.NotFound(w, r) // a registry without signing keys
			return
		}
		mu.Lock()
		frontAuths = append(frontAuths, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/path")
		switch {
		case !ok || r.Header.Get("Authorization") != "Bearer "+token:
			http.Error(w, "no", http.StatusUnauthorized)
		case strings.Contains(rest, "/-/"):
			http.Redirect(w, r, other.srv.URL+rest, http.StatusFound)
		default:
			other.mu.Lock()
			doc := other.doc("@corp/ext", false)
			other.mu.Unlock()
			w.Write([]byte(strings.ReplaceAll(string(doc), other.srv.URL, front.URL+"/path")))
		}
	}))
	defer front.Close()

	home := t.TempDir()
	npmrc := "//" + strings.TrimPrefix(front.URL, "http://") + "/path/:_authToken=" + token + "\n"
	if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte(npmrc), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(Config{Registry: front.URL + "/path/", HomeDir: home, WorkDir: t.TempDir(),
		Getenv: func(string) string { return "" }, Limits: fetch.Limits{RetryDelay: 1}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Resolve(context.Background(), mustSpec(t, "@corp/ext@1"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.TarballURL, front.URL+"/path/") {
		t.Fatalf("tarball URL %s", r.TarballURL)
	}
	tb, err := c.FetchTarball(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(tb.Path)
	mu.Lock()
	if len(frontAuths) != 2 {
		t.Errorf("the registry got %v", frontAuths)
	}
	mu.Unlock()
	other.mu.Lock()
	defer other.mu.Unlock()
	if len(other.auths) != 1 || other.auths[0] != "" {
		t.Errorf("port B got Authorization %q", other.auths)
	}
}

// An https registry cannot send the client to plain http, for a packument
// or a tarball.
func TestNoRedirectToHTTP(t *testing.T) {
	plain := newFakeRegistry(t)
	plain.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.srv.URL+r.URL.Path, http.StatusFound)
	}))
	defer tls.Close()
	c, err := NewClient(Config{Registry: tls.URL + "/", HTTPClient: tls.Client(), HomeDir: t.TempDir(), WorkDir: t.TempDir(),
		Getenv: func(string) string { return "" }, Limits: fetch.Limits{RetryDelay: 1}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve(context.Background(), mustSpec(t, "npm:p"))
	if !errors.Is(err, fetch.ErrInsecureRedirect) || !strings.Contains(err.Error(), tls.URL) || !strings.Contains(err.Error(), plain.srv.URL) {
		t.Fatalf("packument: err = %v", err)
	}
	if n := len(plain.reqs()); n != 0 {
		t.Errorf("the http registry got %d requests", n)
	}

	// A tarball on another https URL that redirects to http is refused too.
	u, _ := url.Parse(tls.URL)
	_, err = c.FetchTarball(context.Background(), &Resolved{Name: "p", Version: "1.0.0",
		TarballURL: u.String() + "/p/-/p-1.0.0.tgz", Integrity: sri("sha512", tgz(t, "p", "1.0.0"))})
	if !errors.Is(err, fetch.ErrInsecureRedirect) {
		t.Fatalf("tarball: err = %v", err)
	}
	if n := len(plain.reqs()); n != 0 {
		t.Errorf("the http registry got %d requests", n)
	}
}

// A tarball server that trickles a byte every 20 ms never trips the idle
// timeout; the overall deadline ends the download.
func TestTarballDeadline(t *testing.T) {
	srv := httptest.NewServer(fetchtest.Trickle(20*time.Millisecond, 500))
	defer srv.Close()
	c, err := NewClient(Config{Registry: srv.URL + "/", HomeDir: t.TempDir(), WorkDir: t.TempDir(), Getenv: func(string) string { return "" },
		Limits: fetch.Limits{IdleTimeout: 2 * time.Second, Timeout: 300 * time.Millisecond, RetryDelay: 1}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.FetchTarball(context.Background(), &Resolved{Name: "p", Version: "1.0.0",
		TarballURL: srv.URL + "/p/-/p-1.0.0.tgz", Integrity: sri("sha512", []byte("x"))})
	if !errors.Is(err, fetch.ErrDeadline) || time.Since(start) > 3*time.Second {
		t.Fatalf("err = %v after %s", err, time.Since(start))
	}
}
