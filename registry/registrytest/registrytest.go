// Package registrytest serves npm packuments over HTTP for tests and
// benchmarks of the registry builder, speaking the npm registry protocol:
// GET /<name> (scoped names as @scope%2fname), a strong ETag per document,
// and 304 Not Modified for a matching If-None-Match. It binds 127.0.0.1 only.
package registrytest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is an npm registry over a set of packuments.
type Server struct {
	*httptest.Server
	mu    sync.RWMutex
	docs  map[string][]byte
	delay time.Duration
	// Requests counts the GETs served; NotModified counts the 304s among them.
	Requests, NotModified atomic.Int64
}

// NewServer starts a registry serving docs (package name → packument
// bytes), adding latency to every request.
func NewServer(docs map[string][]byte, latency time.Duration) *Server {
	s := &Server{docs: docs, delay: latency}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// NewDirServer starts a registry serving the packuments stored under dir
// as <name>.json (so @scope/name is dir/@scope/name.json).
func NewDirServer(dir string, latency time.Duration) (*Server, error) {
	docs := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		docs[strings.TrimSuffix(filepath.ToSlash(rel), ".json")] = data
		return nil
	})
	if os.IsNotExist(err) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return NewServer(docs, latency), nil
}

// Set replaces one packument (nil removes it).
func (s *Server) Set(name string, doc []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if doc == nil {
		delete(s.docs, name)
		return
	}
	s.docs[name] = doc
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.Requests.Add(1)
	if s.delay > 0 {
		time.Sleep(s.delay)
	}
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name, err := url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), "/"))
	if err != nil {
		http.Error(w, "bad name", http.StatusBadRequest)
		return
	}
	s.mu.RLock()
	doc, ok := s.docs[name]
	s.mu.RUnlock()
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"Not found"}`))
		return
	}
	sum := sha256.Sum256(doc)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		s.NotModified.Add(1)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(doc)
}
