package fetch

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// recorder is a plain-http server that records the requests it gets.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newRecorder(t *testing.T, h http.HandlerFunc) *recorder {
	t.Helper()
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Clone(context.Background()))
		r.mu.Unlock()
		if h != nil {
			h(w, req)
			return
		}
		io.WriteString(w, "payload")
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) requests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*http.Request(nil), r.reqs...)
}

func redirectTo(target string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, target, http.StatusFound) }
}

// An https download never continues over plain http: the redirect is
// refused before any request reaches the http server, with an error that
// names both URLs, and it is not tried again.
func TestNoRedirectFromHTTPSToHTTP(t *testing.T) {
	plain := newRecorder(t, nil)
	var hits int
	var mu sync.Mutex
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		http.Redirect(w, r, plain.URL+"/evil.tgz", http.StatusFound)
	}))
	defer tls.Close()
	c := New(Options{HTTP: tls.Client(), Limits: fast})

	_, err := c.Get(context.Background(), tls.URL+"/catalog.json", nil)
	check := func(what string, err error) {
		t.Helper()
		var re *RedirectError
		if !errors.Is(err, ErrInsecureRedirect) || !errors.As(err, &re) {
			t.Fatalf("%s: err = %v", what, err)
		}
		if !strings.Contains(err.Error(), tls.URL+"/") || !strings.Contains(err.Error(), plain.URL+"/evil.tgz") {
			t.Errorf("%s: the error does not name both URLs: %v", what, err)
		}
	}
	check("Get", err)
	_, err = c.DownloadFile(context.Background(), Download{URL: tls.URL + "/x.tgz", Dir: tempdir.New(t)})
	check("DownloadFile", err)
	if n := len(plain.requests()); n != 0 {
		t.Errorf("the http server got %d requests", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits != 2 {
		t.Errorf("the https server got %d requests, want 2 (no retries)", hits)
	}
}

// A download that starts on plain http (a loopback server in tests or
// development) may be redirected to http or https.
func TestRedirectFromHTTPAllowed(t *testing.T) {
	b := newRecorder(t, nil)
	a := newRecorder(t, redirectTo(b.URL+"/b"))
	resp, err := New(Options{Limits: fast}).Get(context.Background(), a.URL+"/a", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if data, err := resp.ReadAll(100); err != nil || string(data) != "payload" {
		t.Fatalf("got %q, %v", data, err)
	}
}

// Credentials go only to the scheme, host, port and path prefix they
// belong to, and are asked for again at every redirect: a redirect to the
// same host on another port, or out of the path prefix, drops them; one
// within the scope keeps them.
func TestCredentialScope(t *testing.T) {
	b := newRecorder(t, nil) // another port on the same host
	var a *recorder
	a = newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/path/to-b":
			http.Redirect(w, r, b.URL+"/path/x", http.StatusFound)
		case "/path/out":
			http.Redirect(w, r, a.URL+"/other/x", http.StatusFound)
		case "/path/in":
			http.Redirect(w, r, a.URL+"/path/sub/x", http.StatusFound)
		default:
			io.WriteString(w, "payload")
		}
	})
	aURL, _ := url.Parse(a.URL + "/path/")
	scope := ScopeOf(aURL)
	token := New(Options{Limits: fast, Auth: func(u *url.URL) string {
		if scope.Contains(u) {
			return "Bearer T0KEN"
		}
		return ""
	}})
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:S3cret"))
	withUser := strings.Replace(a.URL, "http://", "http://alice:S3cret@", 1)

	tests := []struct {
		name     string
		c        *Client
		url      string
		want     string // Authorization at the first hop
		wantLast string // and at the last
		last     *recorder
	}{
		{"token to another port", token, a.URL + "/path/to-b", "Bearer T0KEN", "", b},
		{"token out of the prefix", token, a.URL + "/path/out", "Bearer T0KEN", "", a},
		{"token within the prefix", token, a.URL + "/path/in", "Bearer T0KEN", "Bearer T0KEN", a},
		{"URL password to another port", New(Options{Limits: fast}), withUser + "/path/to-b", basic, "", b},
		{"URL password out of the folder", New(Options{Limits: fast}), withUser + "/path/out", basic, "", a},
		{"URL password within the folder", New(Options{Limits: fast}), withUser + "/path/in", basic, basic, a},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			na, nb := len(a.requests()), len(b.requests())
			resp, err := tt.c.Get(context.Background(), tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			first := a.requests()[na]
			if got := first.Header.Get("Authorization"); got != tt.want {
				t.Errorf("first hop got %q, want %q", got, tt.want)
			}
			var last *http.Request
			if tt.last == b {
				last = b.requests()[nb]
			} else {
				last = a.requests()[na+1]
			}
			if got := last.Header.Get("Authorization"); got != tt.wantLast {
				t.Errorf("%s got %q, want %q", last.URL, got, tt.wantLast)
			}
			if strings.Contains(resp.URL, "S3cret") {
				t.Errorf("response URL %s shows the password", resp.URL)
			}
		})
	}
}

// A password in a URL never shows in an error.
func TestErrorsHideURLPassword(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	withUser := strings.Replace(srv.URL, "http://", "http://alice:S3cret@", 1)
	c := New(Options{Limits: fast})
	for _, u := range []string{withUser + "/missing", "http://alice:S3cret@127.0.0.1:1/refused", "http://alice:S3cret@%zz/"} {
		_, err := c.Get(context.Background(), u, nil)
		if err == nil || strings.Contains(err.Error(), "S3cret") {
			t.Errorf("%s: err = %v", Redact(u), err)
		}
	}
}
