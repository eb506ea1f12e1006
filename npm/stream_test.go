package npm

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// cacheFiles lists every file under the tarball cache.
func cacheFiles(t *testing.T, cache string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(cache, "npm", "tarballs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func openStream(t *testing.T, c *Client, spec string) *TarballStream {
	t.Helper()
	r, err := c.Resolve(context.Background(), mustSpec(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := c.FetchTarballStream(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Stream == nil || tb.Path != "" {
		t.Fatalf("not a stream: %+v", tb)
	}
	t.Cleanup(func() { tb.Stream.Close() })
	return tb.Stream
}

// A streamed tarball is stored in the cache once its end verified it; the
// next fetch takes it from there without a request.
func TestStreamTarballCaches(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
	cache := t.TempDir()
	c := newTestClient(t, reg, cache, nil)
	s := openStream(t, c, "npm:p@1.0.0")
	data, err := io.ReadAll(s)
	if err != nil {
		t.Fatal(err)
	}
	want := reg.pkgs["p"].versions["1.0.0"]
	if string(data) != string(want) || s.Integrity() != sri("sha512", want) {
		t.Errorf("read %d bytes, integrity %s", len(data), s.Integrity())
	}
	if files := cacheFiles(t, cache); len(files) != 1 {
		t.Fatalf("cache holds %v", files)
	}
	r, _ := c.Resolve(context.Background(), mustSpec(t, "npm:p@1.0.0"))
	before := reg.countTarballs()
	tb, err := c.FetchTarballStream(context.Background(), r)
	if err != nil || tb.Stream != nil || !tb.Cached || reg.countTarballs() != before {
		t.Errorf("second fetch: %+v, %v", tb, err)
	}
}

// Bytes that do not match the integrity end in an *IntegrityError instead
// of io.EOF, and nothing is left in the cache.
func TestStreamTarballMismatch(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
	other := tgz(t, "p", "9.9.9")
	reg.pkgs["p"].dists["1.0.0"] = Dist{Tarball: reg.srv.URL + reg.tarballPath("p", "1.0.0"), Integrity: sri("sha512", other)}
	cache := t.TempDir()
	s := openStream(t, newTestClient(t, reg, cache, nil), "npm:p@1.0.0")
	_, err := io.ReadAll(s)
	var ie *IntegrityError
	if !errors.As(err, &ie) || !errors.Is(err, ErrIntegrity) {
		t.Fatalf("err = %v, want an *IntegrityError", err)
	}
	if _, err := s.Read(make([]byte, 1)); !errors.As(err, &ie) {
		t.Errorf("read after the mismatch: %v", err)
	}
	if files := cacheFiles(t, cache); len(files) != 0 {
		t.Errorf("cache holds %v", files)
	}
}

// A body cut off once is fetched again and continues where it broke; cut
// off at every try, it fails and leaves nothing in the cache.
func TestStreamTarballCut(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
	cache := t.TempDir()
	c := newTestClient(t, reg, cache, nil)
	if _, err := c.Resolve(context.Background(), mustSpec(t, "npm:p@1.0.0")); err != nil {
		t.Fatal(err)
	}
	reg.mu.Lock()
	reg.cutBody = 1
	reg.mu.Unlock()
	s := openStream(t, c, "npm:p@1.0.0")
	data, err := io.ReadAll(s)
	if err != nil || string(data) != string(reg.pkgs["p"].versions["1.0.0"]) {
		t.Fatalf("after one cut: %d bytes, %v", len(data), err)
	}

	cache2 := t.TempDir()
	c2 := newTestClient(t, reg, cache2, nil)
	reg.mu.Lock()
	reg.cutBody = 10
	reg.mu.Unlock()
	r, err := c2.Resolve(context.Background(), mustSpec(t, "npm:p@1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := c2.FetchTarballStream(context.Background(), r)
	if err == nil {
		defer tb.Stream.Close()
		_, err = io.ReadAll(tb.Stream)
	}
	if err == nil || errors.Is(err, ErrIntegrity) {
		t.Fatalf("cut at every try: %v", err)
	}
	if files := cacheFiles(t, cache2); len(files) != 0 {
		t.Errorf("cache holds %v", files)
	}
}

// Close before the end removes the partial copy.
func TestStreamTarballClose(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
	cache := t.TempDir()
	s := openStream(t, newTestClient(t, reg, cache, nil), "npm:p@1.0.0")
	if _, err := s.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := s.Read(make([]byte, 10)); err == nil {
		t.Error("read after Close succeeded")
	}
	if files := cacheFiles(t, cache); len(files) != 0 {
		t.Errorf("cache holds %v", files)
	}
}
