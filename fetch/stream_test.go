package fetch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A body that breaks off is asked for again and the bytes already read
// are skipped: the reader sees one continuous copy, the tee each byte once.
func TestStreamResumesBrokenBody(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Content-Length", "10")
			io.WriteString(w, "whol")
			return
		}
		io.WriteString(w, "whole body")
	}))
	defer srv.Close()
	var seen []int64
	var teed strings.Builder
	s, err := New(Options{Limits: fast}).OpenStream(context.Background(), Download{URL: srv.URL,
		Tee: func(total int64) io.Writer { seen = append(seen, total); return &teed }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	data, err := io.ReadAll(s)
	if err != nil || string(data) != "whole body" || teed.String() != "whole body" || len(seen) != 1 || seen[0] != 10 {
		t.Errorf("got %q, %v; teed %q; announced %v", data, err, teed.String(), seen)
	}
	if n.Load() != 2 {
		t.Errorf("%d requests, want 2", n.Load())
	}
}

func TestStreamGivesUpAfterTries(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10")
		io.WriteString(w, "whol")
	}))
	defer srv.Close()
	s, err := New(Options{Limits: fast}).OpenStream(context.Background(), Download{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := io.ReadAll(s); err == nil || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "tries") {
		t.Errorf("err = %v, want the broken body after 3 tries", err)
	}
}

func TestStreamCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			for range 10 {
				io.WriteString(w, strings.Repeat("x", 100))
				w.(http.Flusher).Flush()
			}
			return
		}
		io.WriteString(w, strings.Repeat("x", 1000))
	}))
	defer srv.Close()
	c := New(Options{Limits: fast})
	if _, err := c.OpenStream(context.Background(), Download{URL: srv.URL + "/announced", Limit: 999}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("announced: %v", err)
	}
	s, err := c.OpenStream(context.Background(), Download{URL: srv.URL + "/chunked", Limit: 999})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := io.ReadAll(s); !errors.Is(err, ErrTooLarge) {
		t.Errorf("chunked: %v", err)
	}
}

func TestStreamStalled(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(stalling(release))
	defer srv.Close()
	l := fast
	l.IdleTimeout, l.Tries = 100*time.Millisecond, 1
	s, err := New(Options{Limits: l}).OpenStream(context.Background(), Download{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := io.ReadAll(s); !errors.Is(err, ErrStalled) {
		t.Fatalf("err = %v", err)
	}
}

// Close from another goroutine ends a Read that waits for the server.
func TestStreamCloseUnblocksRead(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(stalling(release))
	defer srv.Close()
	s, err := New(Options{Limits: fast}).OpenStream(context.Background(), Download{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(s, buf); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { _, err := s.Read(buf); done <- err }()
	s.Close()
	if err := <-done; err == nil {
		t.Error("Read after Close succeeded")
	}
}
