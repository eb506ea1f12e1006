package npm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/spiritagents/spirit/fetch"
)

// TarballStream is a tarball read as it downloads (FetchTarballStream).
// Its bytes are hashed as they are read; at the end of the body, Read
// checks them against the resolved integrity. A mismatch is returned in
// place of io.EOF (an *IntegrityError); a match renames the copy written
// on the way into the cache, and only then returns io.EOF. Nothing read
// from it may be kept unless Read returned io.EOF. Close ends the
// download and removes a partial copy; it may be called from another
// goroutine to stop a Read.
type TarballStream struct {
	s        *fetch.Stream
	h        *hashers
	name     string
	version  string
	label    string
	progress progress
	dst      string

	mu   sync.Mutex // Close may come from another goroutine than Read
	tmp  *os.File   // the copy for the cache; nil without a cache, or once it failed
	kept string     // the copy, once verified and in the cache
	sri  string
	err  error // sticky: io.EOF once verified
}

// Integrity is the sha512 SRI of the bytes, once Read returned io.EOF.
func (t *TarballStream) Integrity() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sri
}

// Path is the verified copy in the cache, once Read returned io.EOF; ""
// when none was kept.
func (t *TarballStream) Path() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.kept
}

// Size is the size the registry announced, -1 when unknown.
func (t *TarballStream) Size() int64 { return t.s.Size() }

// Label names the tarball in messages: name@version.
func (t *TarballStream) Label() string { return t.label }

// FetchTarballStream is FetchTarballLazy for a caller that can read the
// tarball as it downloads: a cached tarball comes back as a Path, like
// FetchTarballLazy returns it; any other one as a Stream (Path empty),
// which is verified at its end and then stored in the cache. A Client
// without a cache downloads into a temp file, as FetchTarballLazy does.
func (c *Client) FetchTarballStream(ctx context.Context, r *Resolved) (*Tarball, error) {
	if r == nil {
		return nil, errors.New("npm: FetchTarballStream of nil")
	}
	e, key, err := c.cacheKey(r)
	if err != nil {
		return nil, err
	}
	if key == nil {
		// Without a cache no copy is kept, and a caller may need the
		// bytes twice: a temp file is.
		return c.fetchTarball(ctx, r, true)
	}
	if fi, err := os.Stat(c.cachePath(*key)); err == nil && fi.Mode().IsRegular() {
		return c.fetchTarball(ctx, r, true)
	}
	label := r.Name + "@" + r.Version
	if c.cfg.Offline {
		return nil, &OfflineError{What: "the tarball of " + label}
	}
	t := &TarballStream{h: newHashers(e), name: r.Name, version: r.Version, label: label, progress: c.progress}
	t.s, err = c.fetch.OpenStream(ctx, fetch.Download{
		URL:    r.TarballURL,
		Header: http.Header{"Accept-Encoding": {"identity"}}, // see download
		Tee: func(total int64) io.Writer {
			c.progress.start(label, total)
			return fetch.ProgressWriter(c.progress.p)
		},
	})
	if err != nil {
		err = asHTTPError(err)
		if errors.Is(err, ErrUnauthorized) {
			return nil, fmt.Errorf("tarball of %s: %w (check the _authToken for this registry in .npmrc): %w", label, ErrUnauthorized, err)
		}
		return nil, fmt.Errorf("tarball of %s: %w", label, err)
	}
	t.dst = c.cachePath(*key)
	dir := filepath.Dir(t.dst)
	if os.MkdirAll(dir, 0o755) == nil {
		c.fetch.SweepStale(dir, ".download-*.tgz")
		t.tmp, _ = os.CreateTemp(dir, ".download-*.tgz") // no copy when it fails: only the cache misses it
	}
	return &Tarball{Stream: t}, nil
}

// cacheKey returns what r's bytes must hash to and the hash its cache
// file is named by (nil without a cache or a digest).
func (c *Client) cacheKey(r *Resolved) (*expectation, *Hash, error) {
	e, err := expect(r, c.cfg.AllowSHA1)
	if err != nil {
		return nil, nil, err
	}
	if c.cfg.CacheDir == "" {
		return e, nil, nil
	}
	switch {
	case len(e.sri) > 0:
		return e, &e.sri[0], nil
	case e.shasum != nil:
		return e, &Hash{Algorithm: "sha1", Digest: e.shasum}, nil
	}
	return e, nil, nil
}

// Read returns the next bytes of the tarball; see TarballStream.
func (t *TarballStream) Read(p []byte) (int, error) {
	t.mu.Lock()
	done := t.err
	t.mu.Unlock()
	if done != nil {
		return 0, done
	}
	n, err := t.s.Read(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil { // closed meanwhile
		return 0, t.err
	}
	if n > 0 {
		t.h.Write(p[:n])
		if t.tmp != nil {
			if _, werr := t.tmp.Write(p[:n]); werr != nil {
				t.dropCopy()
			}
		}
	}
	switch {
	case err == io.EOF:
		err = t.finish()
	case err != nil:
		t.dropCopy()
		err = fmt.Errorf("tarball of %s: %w", t.label, asHTTPError(err))
	}
	if err != nil {
		t.err = err
		if err != io.EOF {
			t.progress.done(err)
		}
	}
	return n, err
}

// finish checks the digests at the end of the body and stores the copy.
func (t *TarballStream) finish() error {
	sri, err := t.h.check(t.name, t.version)
	if err != nil {
		t.dropCopy()
		return err
	}
	t.sri = sri
	if t.tmp != nil {
		tmp := t.tmp.Name()
		if t.tmp.Close() != nil || os.Rename(tmp, t.dst) != nil {
			os.Remove(tmp)
		} else {
			t.kept = t.dst
		}
		t.tmp = nil
	}
	t.progress.done(nil)
	return io.EOF
}

func (t *TarballStream) dropCopy() {
	if t.tmp != nil {
		t.tmp.Close()
		os.Remove(t.tmp.Name())
		t.tmp = nil
	}
}

// errClosed is what Read returns after Close.
var errClosed = errors.New("download closed")

// Close ends the download; a copy not yet verified is removed.
func (t *TarballStream) Close() error {
	err := t.s.Close()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dropCopy()
	if t.err == nil {
		t.err = fmt.Errorf("tarball of %s: %w", t.label, errClosed)
		t.progress.done(t.err)
	}
	return err
}
