package npm

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/spiritagents/spirit/fetch"
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
	// Unverified says that the cached file was not read (FetchTarballLazy):
	// the caller must check Integrity, a sha512 SRI, against the bytes it
	// uses, and should remove Path when they do not match.
	Unverified bool
	// Stream, when set (FetchTarballStream), is the tarball still to be
	// downloaded, and every other field is empty; the caller closes it.
	Stream *TarballStream
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
	return c.fetchTarball(ctx, r, false)
}

// FetchTarballLazy is FetchTarball for a caller that hashes the bytes as
// it uses them (an install hashes while it unpacks): a cached tarball that
// a sha512 SRI names is returned without being read, marked Unverified, so
// that it is hashed once, not twice.
func (c *Client) FetchTarballLazy(ctx context.Context, r *Resolved) (*Tarball, error) {
	return c.fetchTarball(ctx, r, true)
}

func (c *Client) fetchTarball(ctx context.Context, r *Resolved, lazy bool) (*Tarball, error) {
	if r == nil {
		return nil, errors.New("npm: FetchTarball of nil")
	}
	e, key, err := c.cacheKey(r)
	if err != nil {
		return nil, err
	}
	label := r.Name + "@" + r.Version
	if key != nil {
		if lazy && key.Algorithm == "sha512" {
			if fi, err := os.Stat(c.cachePath(*key)); err == nil && fi.Mode().IsRegular() {
				sri := "sha512-" + base64.StdEncoding.EncodeToString(key.Digest)
				return &Tarball{Path: c.cachePath(*key), Integrity: sri, Cached: true, Unverified: true}, nil
			}
		}
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
	tmp, sri, err := c.download(ctx, r, e, dir, label)
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

// download streams the tarball into a temp file in dir while hashing it.
// The fetch layer tries again when the body breaks off; integrity failures
// are never retried.
func (c *Client) download(ctx context.Context, r *Resolved, e *expectation, dir, label string) (path, sri string, err error) {
	var h *hashers
	path, err = c.fetch.DownloadFile(ctx, fetch.Download{
		URL: r.TarballURL,
		// A .tgz is already compressed: asking for gzip only makes some
		// registries (Verdaccio) compress it again on the fly.
		Header:  http.Header{"Accept-Encoding": {"identity"}},
		Dir:     dir,
		Pattern: ".download-*.tgz",
		Tee: func(total int64) io.Writer {
			h = newHashers(e)
			c.progress.start(label, total)
			return io.MultiWriter(h, fetch.ProgressWriter(c.progress.p))
		},
	})
	if err == nil {
		if sri, err = h.check(r.Name, r.Version); err != nil {
			os.Remove(path)
		}
	}
	c.progress.done(err)
	if err != nil {
		err = asHTTPError(err)
		if errors.Is(err, ErrUnauthorized) {
			return "", "", fmt.Errorf("tarball of %s: %w (check the _authToken for this registry in .npmrc): %w", label, ErrUnauthorized, err)
		}
		return "", "", fmt.Errorf("tarball of %s: %w", label, err)
	}
	return path, sri, nil
}
