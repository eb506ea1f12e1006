package catalog

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/internal/atomicfile"
)

// Errors of fetching.
var (
	// ErrTooLarge: a response exceeds its cap (it is fetch.ErrTooLarge).
	ErrTooLarge = fetch.ErrTooLarge
	// ErrOffline: offline, and the cache has no copy.
	ErrOffline = errors.New("not in the marketplace cache (offline)")
	// ErrNotFound: the server or folder has no such file (HTTP 404).
	ErrNotFound = errors.New("not found")
)

// HTTPError is an unexpected HTTP status. Its message is the apps' text
// ("<label> fetch failed: <status>") followed by the URL asked for.
type HTTPError struct {
	Label  string
	Status string
	Code   int
	// URL is the URL asked for, without credentials.
	URL string
	err error // the fetch layer's
}

func (e *HTTPError) Error() string {
	msg := e.Label + " fetch failed: " + e.Status
	if e.URL != "" {
		msg += " (" + e.URL + ")"
	}
	return msg
}

// Unwrap returns the fetch layer's error, a *fetch.HTTPError.
func (e *HTTPError) Unwrap() error { return e.err }

// Is maps 404 to ErrNotFound.
func (e *HTTPError) Is(target error) bool {
	return target == ErrNotFound && e.Code == http.StatusNotFound
}

// Origin says where a document came from.
type Origin struct {
	// Location is the URL (redacted) or file read.
	Location string `json:"location"`
	// FromCache is set when the bytes came from the disk cache: fresh,
	// revalidated (304), or as the offline fallback.
	FromCache bool `json:"fromCache"`
	// Revalidated: the server answered 304 Not Modified.
	Revalidated bool `json:"revalidated,omitempty"`
	// Stale is set when the network failed and the cached copy was used;
	// Age is then how old that copy is.
	Stale    bool          `json:"stale,omitempty"`
	Age      time.Duration `json:"-"`
	FetchErr string        `json:"fetchError,omitempty"`
	// digest is the sha256 (hex) of the cached body, "" when not cached.
	digest string
}

// cacheMeta is stored beside a cached body.
type cacheMeta struct {
	URL          string    `json:"url"`
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"lastModified,omitempty"`
	FetchedAt    time.Time `json:"fetchedAt"`
	Size         int64     `json:"size"`
	SHA256       string    `json:"sha256"`
}

func (c *Client) cachePaths(u *url.URL) (body, meta string) {
	sum := sha256.Sum256([]byte(u.String()))
	name := hex.EncodeToString(sum[:16])
	dir := filepath.Join(c.opts.CacheDir, "marketplace", name[:2])
	return filepath.Join(dir, name+".body"), filepath.Join(dir, name+".json")
}

func (c *Client) readCache(u *url.URL, limit int64) ([]byte, *cacheMeta) {
	if c.opts.CacheDir == "" {
		return nil, nil
	}
	bodyFile, metaFile := c.cachePaths(u)
	raw, err := os.ReadFile(metaFile)
	if err != nil {
		return nil, nil
	}
	var m cacheMeta
	if json.Unmarshal(raw, &m) != nil || m.URL != u.String() {
		return nil, nil
	}
	body, err := os.ReadFile(bodyFile)
	if err != nil || int64(len(body)) != m.Size || int64(len(body)) > limit {
		return nil, nil
	}
	return body, &m
}

// writeCache stores body and meta and reports whether it did; a failure
// only costs the cache.
func (c *Client) writeCache(u *url.URL, body []byte, m *cacheMeta) bool {
	if c.opts.CacheDir == "" {
		return false
	}
	bodyFile, metaFile := c.cachePaths(u)
	if os.MkdirAll(filepath.Dir(bodyFile), 0o755) != nil {
		return false
	}
	if body != nil && atomicfile.Write(bodyFile, body, 0o600) != nil {
		return false
	}
	raw, _ := json.Marshal(m)
	return atomicfile.Write(metaFile, raw, 0o600) == nil
}

// parsedCatalog is the parsed form of a cached catalog.json, kept beside
// it so that a warm list does not parse the JSON again. Digest ties it to
// the body it was parsed from.
type parsedCatalog struct {
	Digest   string
	Items    []Item
	Warnings []Warning
}

func (c *Client) parsedFile(u *url.URL) string {
	body, _ := c.cachePaths(u)
	return strings.TrimSuffix(body, ".body") + ".gob"
}

// readParsed returns the parsed catalog cached for the body with digest.
func (c *Client) readParsed(u *url.URL, digest string) *Catalog {
	f, err := os.Open(c.parsedFile(u))
	if err != nil {
		return nil
	}
	defer f.Close()
	var p parsedCatalog
	if gob.NewDecoder(bufio.NewReader(f)).Decode(&p) != nil || p.Digest != digest {
		return nil
	}
	return &Catalog{SchemaVersion: 1, Items: p.Items, Warnings: p.Warnings}
}

func (c *Client) writeParsed(u *url.URL, digest string, cat *Catalog) {
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(parsedCatalog{Digest: digest, Items: cat.Items, Warnings: cat.Warnings}) == nil {
		_ = atomicfile.Write(c.parsedFile(u), buf.Bytes(), 0o600)
	}
}

// get reads loc, capped at limit bytes.
func (c *Client) get(ctx context.Context, loc location, limit int64, label string) ([]byte, *Origin, error) {
	if loc.url == nil {
		data, err := readFileCapped(loc, limit, label)
		return data, &Origin{Location: loc.file}, err
	}
	return c.getURL(ctx, loc.url, limit, label)
}

func readFileCapped(loc location, limit int64, label string) ([]byte, error) {
	file := loc.file
	f, err := loc.open()
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w: %s", label, ErrNotFound, file)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: %s exceeds %d bytes: %s", ErrTooLarge, label, limit, file)
	}
	return data, nil
}

// getURL fetches u through the cache: a copy younger than MaxAge is used
// as it is, an older one is revalidated, and on a network failure (or a
// 5xx) the cached copy is returned with Origin.Stale set.
func (c *Client) getURL(ctx context.Context, u *url.URL, limit int64, label string) ([]byte, *Origin, error) {
	shown := fetch.Redact(u.String())
	cached, meta := c.readCache(u, limit)
	now := c.now()
	if cached != nil && (c.opts.Offline || now.Sub(meta.FetchedAt) < c.opts.MaxAge) {
		return cached, &Origin{Location: shown, FromCache: true, Age: now.Sub(meta.FetchedAt), digest: meta.SHA256}, nil
	}
	if c.opts.Offline {
		return nil, nil, fmt.Errorf("%w: %s %s", ErrOffline, label, shown)
	}
	header := http.Header{}
	if meta != nil {
		if meta.ETag != "" {
			header.Set("If-None-Match", meta.ETag)
		}
		if meta.LastModified != "" {
			header.Set("If-Modified-Since", meta.LastModified)
		}
	}
	body, resp, err := c.fetch(ctx, u, header, limit, label)
	switch {
	case err == nil && resp.Status == http.StatusNotModified && cached != nil:
		meta.FetchedAt = now
		c.writeCache(u, nil, meta)
		return cached, &Origin{Location: shown, FromCache: true, Revalidated: true, digest: meta.SHA256}, nil
	case err == nil:
		sum := sha256.Sum256(body)
		m := &cacheMeta{URL: u.String(), ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"),
			FetchedAt: now, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])}
		digest := ""
		if c.writeCache(u, body, m) {
			digest = m.SHA256
		}
		return body, &Origin{Location: shown, digest: digest}, nil
	}
	var he *HTTPError
	transient := !errors.As(err, &he) || he.Code >= 500
	if transient && !errors.Is(err, ErrTooLarge) && cached != nil && ctx.Err() == nil {
		age := now.Sub(meta.FetchedAt)
		return cached, &Origin{Location: shown, FromCache: true, Stale: true, Age: age, FetchErr: err.Error(), digest: meta.SHA256}, nil
	}
	return nil, nil, err
}

// fetch makes the GET through the fetch layer (timeouts, retries, the
// redirect and credential rules); the body is capped at limit. A 304
// answer has no body.
func (c *Client) fetch(ctx context.Context, u *url.URL, header http.Header, limit int64, label string) ([]byte, *fetch.Response, error) {
	resp, err := c.fc.Get(ctx, u.String(), header)
	if err != nil {
		var he *fetch.HTTPError
		if errors.As(err, &he) {
			return nil, nil, &HTTPError{Label: label, Status: he.Text, Code: he.Status, URL: u.Redacted(), err: err}
		}
		return nil, nil, fmt.Errorf("%s request failed: %w", label, err)
	}
	defer resp.Body.Close()
	if resp.Status == http.StatusNotModified {
		return nil, resp, nil
	}
	body, err := resp.ReadAll(limit)
	if err != nil {
		return nil, nil, fmt.Errorf("%s request failed: %w", label, err)
	}
	return body, resp, nil
}
