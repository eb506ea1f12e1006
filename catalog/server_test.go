package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// registryServer serves a registry folder over plain HTTP GET, as a static
// host does: a strong ETag per file, 304 on If-None-Match, Content-Length.
type registryServer struct {
	*httptest.Server
	root string

	mu       sync.Mutex
	hits     map[string]int
	notMod   int
	ifNone   []string
	status   int  // when non-zero, every request answers this status
	chunked  bool // omit Content-Length
	override map[string][]byte
}

func newRegistryServer(t testing.TB, root string) *registryServer {
	t.Helper()
	s := &registryServer{root: root, hits: map[string]int{}, override: map[string][]byte{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *registryServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "method", http.StatusMethodNotAllowed)
		return
	}
	s.mu.Lock()
	s.hits[r.URL.Path]++
	if v := r.Header.Get("If-None-Match"); v != "" {
		s.ifNone = append(s.ifNone, v)
	}
	status, chunked := s.status, s.chunked
	data, overridden := s.override[r.URL.Path]
	s.mu.Unlock()
	if status != 0 {
		http.Error(w, http.StatusText(status), status)
		return
	}
	if !overridden {
		rel := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		var err error
		data, err = os.ReadFile(filepath.Join(s.root, filepath.FromSlash(rel)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
	}
	sum := sha256.Sum256(data)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		s.mu.Lock()
		s.notMod++
		s.mu.Unlock()
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if chunked {
		w.WriteHeader(http.StatusOK)
		for i := 0; i < len(data); i += 1024 {
			w.Write(data[i:min(i+1024, len(data))])
			w.(http.Flusher).Flush()
		}
		return
	}
	w.Header().Set("Content-Length", itoa(len(data)))
	w.Write(data)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func (s *registryServer) count(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[p]
}

func (s *registryServer) set(fn func(s *registryServer)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s)
}
