package install

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

func TestDownload(t *testing.T) {
	stall := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/pkg/x-1.0.0.tgz":
			w.Write([]byte("tarball bytes"))
		case "/stall.tgz":
			w.Write([]byte("first bytes"))
			w.(http.Flusher).Flush()
			select {
			case <-stall:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	defer close(stall)
	dir := tempdir.New(t)
	ctx := context.Background()

	file, name, err := Download(ctx, srv.Client(), srv.URL+"/pkg/x-1.0.0.tgz", dir)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(file); string(data) != "tarball bytes" || name != "x-1.0.0.tgz" {
		t.Errorf("got %q named %q", data, name)
	}

	if _, _, err := Download(ctx, srv.Client(), srv.URL+"/missing.tgz", dir); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing: %v", err)
	}
	if _, _, err := Download(ctx, srv.Client(), strings.Replace(srv.URL, "https:", "http:", 1)+"/pkg/x-1.0.0.tgz", dir); !errors.Is(err, ErrInsecureURL) {
		t.Errorf("http: %v", err)
	}

	fc := fetch.New(fetch.Options{HTTP: srv.Client(), Limits: fetch.Limits{IdleTimeout: 200 * time.Millisecond, Tries: 1}})
	start := time.Now()
	if _, _, err := DownloadWith(ctx, fc, srv.URL+"/stall.tgz", dir); !errors.Is(err, fetch.ErrStalled) {
		t.Errorf("stalled body: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stalled body took %v to give up", d)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("failed downloads left files behind: %d entries", len(entries))
	}
}

// An https URL install does not follow a redirect to plain http, and the
// http server never sees a request.
func TestDownloadNoRedirectToHTTP(t *testing.T) {
	var plainHits atomic.Int32
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		plainHits.Add(1)
		w.Write([]byte("attacker tarball"))
	}))
	defer plain.Close()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/evil.tgz", http.StatusFound)
	}))
	defer srv.Close()
	dir := tempdir.New(t)
	_, _, err := Download(context.Background(), srv.Client(), srv.URL+"/x.tgz", dir)
	if !errors.Is(err, fetch.ErrInsecureRedirect) || !strings.Contains(err.Error(), plain.URL+"/evil.tgz") {
		t.Fatalf("err = %v", err)
	}
	if plainHits.Load() != 0 {
		t.Errorf("the http server got %d requests", plainHits.Load())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %d files", len(entries))
	}
}

func TestRecordedURL(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"user and password", "https://alice:S3cret@h.example/x.tgz", "https://h.example/x.tgz"},
		{"token as user", "HTTPS://T0KEN@h.example/x.tgz", "https://h.example/x.tgz"},
		{"plain URL kept", "https://h.example/a%20b/x.tgz?v=1", "https://h.example/a%20b/x.tgz?v=1"},
		{"path kept", "./my ext@1.tgz", "./my ext@1.tgz"},
		{"npm spec kept", "npm:@scope/x@^1", "npm:@scope/x@^1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := recordedURL(tt.in); got != tt.want {
				t.Errorf("recordedURL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// Records written before credentials were dropped lose them when read.
func TestLegacyRecordsLoseCredentials(t *testing.T) {
	file := filepath.Join(tempdir.New(t), "installed.json")
	legacy := `{"schemaVersion":1,"extensions":{"x":{"id":"x","version":"1.0.0","directoryName":"pkg-eA",` +
		`"source":"https://alice:S3cret@h.example/x.tgz","resolvedUrl":"https://alice:S3cret@h.example/x.tgz","installedAtUnixMs":1}}}`
	if err := os.WriteFile(file, []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	r := readRecords(file)["x"]
	if r == nil || r.Source != "https://h.example/x.tgz" || r.ResolvedURL != "https://h.example/x.tgz" {
		t.Fatalf("record %+v", r)
	}
}
