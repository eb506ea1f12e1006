package install

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/fetch"
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
	dir := t.TempDir()
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
