// Package statichost is the test double of a static web host (GitHub raw,
// a CDN, S3) serving a marketplace registry folder over plain HTTP GET: a
// strong ETag per file, 304 Not Modified on a matching If-None-Match, a
// Content-Length (unless chunked), 404 for what is not there. Tests can
// make it fail, stream in chunks, or answer other bytes for one path, and
// read what it saw. It binds 127.0.0.1 only (httptest).
package statichost

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Server serves one folder. Its methods are safe for concurrent use.
type Server struct {
	*httptest.Server
	root string

	mu          sync.Mutex
	hits        map[string]int
	total       int
	notModified int
	ifNoneMatch []string
	status      int
	chunked     bool
	override    map[string][]byte
}

// New starts a server for the folder root, closed when the test ends.
func New(t testing.TB, root string) *Server {
	t.Helper()
	s := &Server{root: root, hits: map[string]int{}, override: map[string][]byte{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "method", http.StatusMethodNotAllowed)
		return
	}
	s.mu.Lock()
	s.hits[r.URL.Path]++
	s.total++
	if v := r.Header.Get("If-None-Match"); v != "" {
		s.ifNoneMatch = append(s.ifNoneMatch, v)
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
		if data, err = os.ReadFile(filepath.Join(s.root, filepath.FromSlash(rel))); err != nil {
			http.NotFound(w, r)
			return
		}
	}
	sum := sha256.Sum256(data)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		s.mu.Lock()
		s.notModified++
		s.mu.Unlock()
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if chunked {
		w.WriteHeader(http.StatusOK)
		for i := 0; i < len(data); i += 1024 {
			_, _ = w.Write(data[i:min(i+1024, len(data))])
			w.(http.Flusher).Flush()
		}
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	_, _ = w.Write(data)
}

// Hits returns how many requests asked for the URL path p.
func (s *Server) Hits(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[p]
}

// TotalHits returns how many requests arrived.
func (s *Server) TotalHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// NotModified returns how many requests were answered 304.
func (s *Server) NotModified() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notModified
}

// IfNoneMatch returns the If-None-Match values received, in order.
func (s *Server) IfNoneMatch() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ifNoneMatch...)
}

// SetStatus makes every request answer code (0: serve normally again).
func (s *Server) SetStatus(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = code
}

// SetChunked makes the answers stream in 1 KiB chunks, without
// Content-Length.
func (s *Server) SetChunked(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chunked = on
}

// Override answers data for the URL path p instead of the file.
func (s *Server) Override(p string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.override[p] = data
}
