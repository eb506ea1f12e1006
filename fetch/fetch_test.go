package fetch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// fast are limits that keep failing tests short.
var fast = Limits{HeaderTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second, RetryDelay: time.Millisecond}

func TestLimitsDefaults(t *testing.T) {
	l := Limits{}.WithDefaults()
	want := Limits{HeaderTimeout: 30 * time.Second, IdleTimeout: 30 * time.Second, Timeout: 10 * time.Minute,
		MaxDownload: 100 << 20, Tries: 3, RetryDelay: 500 * time.Millisecond}
	if l != want {
		t.Errorf("defaults = %+v, want %+v", l, want)
	}
	if l := (Limits{Timeout: time.Second}).WithDefaults(); l.Timeout != time.Second {
		t.Errorf("Timeout overridden: %v", l.Timeout)
	}
}

func TestParseTimeout(t *testing.T) {
	tests := []struct {
		name, in string
		want     time.Duration
		bad      bool
	}{
		{name: "empty", in: "", want: 0},
		{name: "duration", in: "90s", want: 90 * time.Second},
		{name: "minutes", in: " 15m ", want: 15 * time.Minute},
		{name: "bare seconds", in: "45", want: 45 * time.Second},
		{name: "zero", in: "0", bad: true},
		{name: "negative", in: "-1m", bad: true},
		{name: "garbage", in: "soon", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTimeout(tt.in)
			if (err != nil) != tt.bad || got != tt.want {
				t.Errorf("ParseTimeout(%q) = %v, %v", tt.in, got, err)
			}
		})
	}
}

func TestGetRetriesServerErrors(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) < 3 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	c := New(Options{Limits: fast})
	resp, err := c.Get(context.Background(), srv.URL+"/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := resp.ReadAll(10)
	resp.Body.Close()
	if err != nil || string(data) != "ok" || n.Load() != 3 {
		t.Fatalf("got %q, %v after %d requests", data, err, n.Load())
	}

	n.Store(-10)
	_, err = c.Get(context.Background(), srv.URL+"/x", nil)
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 503 || !strings.Contains(err.Error(), "after 3 tries") {
		t.Fatalf("err = %v", err)
	}
}

func TestGetNotFoundIsNotRetried(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	_, err := New(Options{Limits: fast}).Get(context.Background(), srv.URL+"/x", nil)
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 404 || he.Text != "404 Not Found" || n.Load() != 1 {
		t.Fatalf("err = %v after %d requests", err, n.Load())
	}
}

func TestReadAllCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no Content-Length
		}
		io.WriteString(w, strings.Repeat("x", 100))
	}))
	defer srv.Close()
	c := New(Options{Limits: fast})
	for _, p := range []string{"/sized", "/chunked"} {
		resp, err := c.Get(context.Background(), srv.URL+p, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = resp.ReadAll(99)
		resp.Body.Close()
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: err = %v", p, err)
		}
	}
}

func TestDownloadFile(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/broken":
			// The first answer promises 10 bytes and breaks off after 4.
			if n.Add(1) == 1 {
				w.Header().Set("Content-Length", "10")
				io.WriteString(w, "part")
				return
			}
			io.WriteString(w, "whole body")
		case "/big":
			io.WriteString(w, strings.Repeat("x", 1000))
		}
	}))
	defer srv.Close()
	dir := tempdir.New(t)
	c := New(Options{Limits: fast})
	var seen []int64
	path, err := c.DownloadFile(context.Background(), Download{URL: srv.URL + "/broken", Dir: dir,
		Tee: func(total int64) io.Writer { seen = append(seen, total); return io.Discard }})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "whole body" || len(seen) != 2 {
		t.Errorf("got %q after tries announcing %v", data, seen)
	}
	os.Remove(path)

	if _, err := c.DownloadFile(context.Background(), Download{URL: srv.URL + "/big", Dir: dir, Limit: 999}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("cap: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("files left behind: %v", left)
	}
}

// A partial download that a killed process left behind is removed by the
// next download into the same folder once it is StaleAfter old; a fresh
// one (another process may be writing it) and other files stay.
func TestDownloadSweepsStalePartials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	dir := tempdir.New(t)
	old := time.Now().Add(-StaleAfter - time.Minute)
	for _, name := range []string{".download-stale.tgz", ".download-fresh.tgz", "kept.tgz"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{".download-stale.tgz", "kept.tgz"} {
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	path, err := New(Options{Limits: fast}).DownloadFile(context.Background(), Download{URL: srv.URL, Dir: dir, Pattern: ".download-*.tgz"})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if filepath.Join(dir, e.Name()) != path {
			left = append(left, e.Name())
		}
	}
	if want := []string{".download-fresh.tgz", "kept.tgz"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}

// stalling answers with a first chunk and then sends nothing until release
// is closed or the client goes away.
func stalling(release <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
}

func TestStalledBody(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(stalling(release))
	defer srv.Close()
	l := fast
	l.IdleTimeout, l.Tries = 100*time.Millisecond, 1
	_, err := New(Options{Limits: l}).DownloadFile(context.Background(), Download{URL: srv.URL + "/x", Dir: tempdir.New(t)})
	if !errors.Is(err, ErrStalled) {
		t.Fatalf("err = %v", err)
	}
}

// A stalled body is an error even when net/http ends the cancelled body
// with io.EOF: over TLS the client's close_notify lets the server finish
// the response in the moment before the socket shuts. Short idle limits
// hit that window within a few dozen tries.
func TestStalledBodyNeverSucceeds(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewTLSServer(stalling(release))
	defer srv.Close()
	dir := tempdir.New(t)
	for i := range 150 {
		l := fast
		l.IdleTimeout, l.Tries = time.Duration(1+i%7)*time.Millisecond, 1
		path, err := New(Options{HTTP: srv.Client(), Limits: l}).DownloadFile(context.Background(), Download{URL: srv.URL + "/x", Dir: dir})
		if !errors.Is(err, ErrStalled) {
			t.Fatalf("try %d: got %q, %v; want ErrStalled", i, path, err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("files left behind: %v", left)
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ name, in, redact string }{
		{"user and password", "https://alice:S3cret@h.example/x.tgz", "https://h.example/x.tgz"},
		{"token as user", "https://ghp_T0KEN@h.example/x", "https://h.example/x"},
		{"none, kept as is", "https://h.example/a b/x", "https://h.example/a b/x"},
		{"not a URL with @", "https://a:b@h\x7f/", "<invalid URL>"},
		{"not a URL", "%zz", "%zz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Redact(tt.in); got != tt.redact {
				t.Errorf("Redact = %q, want %q", got, tt.redact)
			}
		})
	}
}

// Redact never lets user information through, and a URL without any comes
// back unchanged.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"https://alice:S3cret@h.example/x.tgz", "https://h/x", "http://a@b@c/", "%zz@", "npm:@s/x@1", "https://[::1]:8/x",
		"https://h/x?token=t0k&a=b", "https://h/x?X-Amz-Signature=abc&X-Amz-Credential=k%2F1", "https://h/x#access_token=t", "%zz?sig=1", "https://h/x?a=1;api_key=2&&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Redact(s)
		u, err := url.Parse(s)
		if err != nil {
			if (strings.Contains(s, "@") || secretParams(s)) && out != "<invalid URL>" {
				t.Fatalf("Redact(%q) = %q", s, out)
			}
			return
		}
		if out == "<invalid URL>" {
			return
		}
		v, err := url.Parse(out)
		if err != nil {
			t.Fatalf("Redact(%q) = %q, which does not parse: %v", s, out, err)
		}
		if v.User != nil && v.User.String() != "" {
			t.Fatalf("Redact(%q) = %q keeps user information", s, out)
		}
		for _, raw := range []string{v.RawQuery, v.EscapedFragment()} {
			if _, changed := redactParams(raw); changed {
				t.Fatalf("Redact(%q) = %q keeps a credential parameter", s, out)
			}
		}
		if again := Redact(out); again != out {
			t.Fatalf("Redact(%q) = %q, but Redact of that = %q", s, out, again)
		}
		if (u.User == nil || u.User.String() == "") && !strings.ContainsAny(s, "?#") && out != s {
			t.Fatalf("Redact(%q) = %q, want it unchanged", s, out)
		}
	})
}

// Tokens in a URL's query string or fragment are redacted wherever URLs are
// shown or recorded; other parameters and the order are kept.
func TestRedactQueryTokens(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://h.example/x.tgz?token=t0k", "https://h.example/x.tgz?token=REDACTED"},
		{"https://h.example/x?a=1&access_token=t0k&b=2", "https://h.example/x?a=1&access_token=REDACTED&b=2"},
		{"https://b.s3.example/k?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIA%2F1&X-Amz-Signature=abc&X-Amz-Security-Token=st",
			"https://b.s3.example/k?X-Amz-Algorithm=AWS4&X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED&X-Amz-Security-Token=REDACTED"},
		{"https://acct.blob.example/c/x.tgz?sv=2024&sig=s1g%3D&se=2026", "https://acct.blob.example/c/x.tgz?sv=2024&sig=REDACTED&se=2026"},
		{"https://h/x?api_key=k&apikey=k&Key=k&keyword=go", "https://h/x?api_key=REDACTED&apikey=REDACTED&Key=REDACTED&keyword=go"},
		{"https://h/cb#access_token=t&state=s", "https://h/cb#access_token=REDACTED&state=s"},
		{"https://u:p@h/x?password=p", "https://h/x?password=REDACTED"},
		{"https://h/x?page=2&q=a+b", "https://h/x?page=2&q=a+b"},
		{"%zz?token=1", "<invalid URL>"},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// An error about a URL whose query holds a token does not print the token.
func TestErrorsRedactQueryTokens(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	c := New(Options{HTTP: srv.Client(), Limits: Limits{Tries: 1}})
	_, err := c.Get(context.Background(), srv.URL+"/x.tgz?access_token=tok_marker_91&v=1", nil)
	if err == nil || strings.Contains(err.Error(), "tok_marker_91") || !strings.Contains(err.Error(), "access_token=REDACTED&v=1") {
		t.Fatalf("error %v: want the token redacted", err)
	}
}
