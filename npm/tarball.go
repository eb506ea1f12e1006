package npm

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Tarball is a downloaded and verified tarball.
type Tarball struct {
	// Path is the verified .tgz: in the cache, or a temp file when the
	// Client has no cache (then Temporary is true and the caller removes it).
	Path string
	// Integrity is the sha512 SRI of the file's bytes.
	Integrity string
	// Temporary says that Path is a temp file the caller owns.
	Temporary bool
	// Cached says that no request was made: the file came from the cache.
	Cached bool
}

// cachePath returns where a tarball verified by h lives in the cache.
func (c *Client) cachePath(h Hash) string {
	x := hex.EncodeToString(h.Digest)
	return filepath.Join(c.cfg.CacheDir, "npm", "tarballs", h.Algorithm, x[:2], x+".tgz")
}

// FetchTarball returns r's tarball, from the cache when it holds one with
// the expected digest, else downloaded, verified while it streams and
// stored in the cache. On a mismatch nothing is kept.
func (c *Client) FetchTarball(ctx context.Context, r *Resolved) (*Tarball, error) {
	if r == nil {
		return nil, errors.New("npm: FetchTarball of nil")
	}
	e, err := expect(r, c.cfg.AllowSHA1)
	if err != nil {
		return nil, err
	}
	label := r.Name + "@" + r.Version
	var key *Hash
	if c.cfg.CacheDir != "" {
		switch {
		case len(e.sri) > 0:
			key = &e.sri[0]
		case e.shasum != nil:
			key = &Hash{Algorithm: "sha1", Digest: e.shasum}
		}
	}
	if key != nil {
		if t, err := c.fromCache(c.cachePath(*key), e, r); err == nil {
			return t, nil
		}
	}
	if c.cfg.Offline {
		return nil, &OfflineError{What: "the tarball of " + label}
	}
	dir := os.TempDir()
	if key != nil {
		dir = filepath.Dir(c.cachePath(*key))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("npm cache: %w", err)
		}
	}
	tmp, sri, err := c.downloadWithRetries(ctx, r, e, dir, label)
	if err != nil {
		return nil, err
	}
	if key == nil {
		return &Tarball{Path: tmp, Integrity: sri, Temporary: true}, nil
	}
	dst := c.cachePath(*key)
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("npm cache: %w", err)
	}
	return &Tarball{Path: dst, Integrity: sri}, nil
}

// fromCache re-verifies a cached tarball; a corrupt one is removed.
func (c *Client) fromCache(path string, e *expectation, r *Resolved) (*Tarball, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := newHashers(e)
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	sri, err := h.check(r.Name, r.Version)
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return &Tarball{Path: path, Integrity: sri, Cached: true}, nil
}

// bodyError is a response body that broke off or stalled part way: the
// download may be tried again.
type bodyError struct{ err error }

func (e *bodyError) Error() string { return e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

// downloadWithRetries is download, tried again (up to 3 times in all, with a
// growing pause) when the body breaks off part way. Connection errors and
// 5xx are already retried by get; integrity failures never are.
func (c *Client) downloadWithRetries(ctx context.Context, r *Resolved, e *expectation, dir, label string) (path, sri string, err error) {
	delay := c.cfg.RetryDelay
	for try := 1; ; try++ {
		path, sri, err = c.download(ctx, r, e, dir, label)
		var be *bodyError
		if err == nil || !errors.As(err, &be) || ctx.Err() != nil {
			return path, sri, err
		}
		if try == tries {
			return "", "", fmt.Errorf("%w (after %d tries)", err, tries)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", "", ctx.Err()
		case <-t.C:
		}
		delay *= 2
	}
}

// download streams the tarball into a temp file in dir while hashing it.
func (c *Client) download(ctx context.Context, r *Resolved, e *expectation, dir, label string) (path, sri string, err error) {
	// A .tgz is already compressed: asking for gzip only makes some
	// registries (Verdaccio) compress it again on the fly.
	resp, err := c.get(ctx, r.TarballURL, http.Header{"Accept-Encoding": {"identity"}})
	if err != nil {
		if errors.Is(err, ErrUnauthorized) {
			return "", "", fmt.Errorf("tarball of %s: %w (check the _authToken for this registry in .npmrc): %w", label, ErrUnauthorized, err)
		}
		return "", "", fmt.Errorf("tarball of %s: %w", label, err)
	}
	defer resp.body.Close()
	limit := c.cfg.MaxTarballSize
	total := int64(-1)
	if n, perr := strconv.ParseInt(resp.header.Get("Content-Length"), 10, 64); perr == nil && n >= 0 {
		if n > limit {
			return "", "", fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, label, n, limit)
		}
		total = n
	}
	f, err := os.CreateTemp(dir, ".download-*.tgz")
	if err != nil {
		return "", "", fmt.Errorf("npm: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	c.progress.start(label, total)
	h := newHashers(e)
	n, err := io.Copy(io.MultiWriter(f, h, progressWriter{c.progress}), io.LimitReader(resp.body, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("%w: %s is larger than the limit of %d bytes", ErrTooLarge, label, limit)
	}
	if err != nil && !errors.Is(err, ErrTooLarge) {
		err = &bodyError{fmt.Errorf("tarball of %s: GET %s: %w", label, resp.url, err)}
	}
	if err == nil {
		sri, err = h.check(r.Name, r.Version)
	}
	if err == nil {
		err = f.Close()
	}
	c.progress.done(err)
	if err != nil {
		return "", "", err
	}
	return f.Name(), sri, nil
}

type progressWriter struct{ p progress }

func (w progressWriter) Write(b []byte) (int, error) {
	w.p.add(int64(len(b)))
	return len(b), nil
}
