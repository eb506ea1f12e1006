package catalog

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spiritagents/spirit/catalog/verify"
	"github.com/spiritagents/spirit/fetch"
)

// Limits caps the size of each kind of document. A tarball's cap, the
// timeouts and retries are Options.Fetch (package fetch).
type Limits struct {
	// Catalog caps catalog.json; 0 → 16 MiB. (The reference caps it at
	// 512 KiB, which holds only ~700 items.)
	Catalog int64
	// JSON caps detail.json; 0 → 512 KiB.
	JSON int64
	// Readme caps a README; 0 → 2 MiB.
	Readme int64
}

// Default limits.
const (
	DefaultCatalogLimit = 16 << 20
	DefaultJSONLimit    = 512 << 10
	DefaultReadmeLimit  = 2 << 20
	// DefaultMaxAge is how long a cached response or git clone is used
	// without asking the server again.
	DefaultMaxAge = 10 * time.Minute
)

// Options configure a Client.
type Options struct {
	// Source is the registry: see ParseSource; "" is DefaultRegistry.
	Source string
	// CacheDir holds cached responses and git clones; "" → no cache (and
	// no git sources).
	CacheDir string
	// HTTPClient makes requests; nil → fetch.NewHTTPClient().
	HTTPClient *http.Client
	// MaxAge: a cached copy younger than this is used without a request; 0
	// revalidates every time.
	MaxAge time.Duration
	// Offline uses only the cache.
	Offline bool
	Limits  Limits
	// Fetch bounds every request (timeouts, retries) and caps a tarball
	// (MaxDownload); its Timeout also bounds a git clone. Zero fields take
	// the defaults of package fetch.
	Fetch fetch.Limits
	// Now is the clock; nil → time.Now.
	Now func() time.Time
	// Progress receives the progress of tarball downloads; nil is fine.
	Progress fetch.Progress
	// TrustDir keeps, per index, the pinned root and the metadata versions
	// seen of signed indexes (see package verify); "" keeps nothing.
	TrustDir string
	// RequireSigned refuses an index without TUF metadata.
	RequireSigned bool
	// AllowExpired accepts a signed index whose metadata has expired (an
	// old offline mirror); Signature().Expired then says so.
	AllowExpired bool
	// OnSignature hears the signed index once it is verified (to tell of a
	// root pinned on first use, or of expired metadata accepted); nil is fine.
	OnSignature func(*verify.Index)
}

// Client reads one registry. It remembers what it has read successfully
// (never a failure); it is not safe for concurrent use.
type Client struct {
	opts    Options
	src     *Source
	hc      *http.Client
	fc      *fetch.Client
	dir     string // registry folder (KindDir, or the git clone)
	dirOrig *Origin
	catalog *Catalog
	details map[string]*Detail
	// the signed index, verified once (see signed.go)
	sig     *verify.Index
	sigErr  error
	sigDone bool
}

// New returns a Client for opts.Source.
func New(opts Options) (*Client, error) {
	src, err := ParseSource(opts.Source)
	if err != nil {
		return nil, err
	}
	l := &opts.Limits
	if l.Catalog <= 0 {
		l.Catalog = DefaultCatalogLimit
	}
	if l.JSON <= 0 {
		l.JSON = DefaultJSONLimit
	}
	if l.Readme <= 0 {
		l.Readme = DefaultReadmeLimit
	}
	opts.Fetch = opts.Fetch.WithDefaults()
	hc := opts.HTTPClient
	if hc == nil {
		hc = fetch.NewHTTPClient()
	}
	fc := fetch.New(fetch.Options{HTTP: hc, Limits: opts.Fetch, UserAgent: "spirit (marketplace client)"})
	c := &Client{opts: opts, src: src, hc: hc, fc: fc, details: map[string]*Detail{}}
	if src.Kind == KindDir {
		c.dir = src.Dir
	}
	return c, nil
}

// Source returns the parsed registry source.
func (c *Client) Source() *Source { return c.src }

func (c *Client) now() time.Time {
	if c.opts.Now != nil {
		return c.opts.Now()
	}
	return time.Now()
}

// base returns the URL base (KindURL) or the folder every relative
// reference is resolved against.
func (c *Client) base(ctx context.Context) (*url.URL, string, *Origin, error) {
	switch c.src.Kind {
	case KindURL:
		return c.src.URL, "", nil, nil
	case KindGit:
		if c.dir == "" {
			dir, origin, err := c.gitDir(ctx)
			if err != nil {
				return nil, "", nil, err
			}
			c.dir, c.dirOrig = dir, origin
		}
	}
	return nil, c.dir, c.dirOrig, nil
}

func (c *Client) resolve(ctx context.Context, ref, label string) (location, *Origin, error) {
	base, dir, origin, err := c.base(ctx)
	if err != nil {
		return location{}, nil, err
	}
	loc, err := resolveRef(ref, base, dir, label)
	return loc, origin, err
}

// originWarning turns a stale origin into a warning that says its age.
func originWarning(o *Origin, what string) []Warning {
	if o == nil || !o.Stale {
		return nil
	}
	return []Warning{{Message: fmt.Sprintf("could not refresh the %s (%s); using the cached copy from %s ago",
		what, o.FetchErr, roundAge(o.Age))}}
}

func roundAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		return d.Round(time.Minute).String()
	}
	return d.Round(time.Hour).String()
}

// Catalog returns the parsed catalog.json.
func (c *Client) Catalog(ctx context.Context) (*Catalog, error) {
	if c.catalog != nil {
		return c.catalog, nil
	}
	loc, gitOrigin, err := c.resolve(ctx, "catalog.json", "marketplace catalog")
	if err != nil {
		return nil, err
	}
	data, _, origin, err := c.getSigned(ctx, loc, c.opts.Limits.Catalog, "marketplace catalog")
	if err != nil {
		if hint := c.catalogHint(err); hint != "" {
			err = &CatalogLocationError{Err: err, hint: hint}
		}
		return nil, err
	}
	var cat *Catalog
	if origin.digest != "" && origin.FromCache {
		cat = c.readParsed(loc.url, origin.digest)
	}
	if cat == nil {
		if cat, err = ParseCatalog(data); err != nil {
			return nil, err
		}
		if origin.digest != "" {
			c.writeParsed(loc.url, origin.digest, cat)
		}
	}
	if gitOrigin != nil {
		origin = gitOrigin
	}
	cat.Origin = origin
	cat.Warnings = append(originWarning(origin, "marketplace catalog"), cat.Warnings...)
	c.catalog = cat
	return cat, nil
}

// CatalogLocationError is a catalog.json that is not where the source
// says: its Hint says where it should be.
type CatalogLocationError struct {
	Err  error
	hint string
}

func (e *CatalogLocationError) Error() string { return e.Err.Error() }
func (e *CatalogLocationError) Unwrap() error { return e.Err }

// Hint says where catalog.json should be, or how to make it.
func (e *CatalogLocationError) Hint() string { return e.hint }

// catalogHint says where catalog.json should be when reading it failed
// with err because it is not there: the usual mistakes are a folder
// source naming the repository root (catalog.json is in its registry/
// folder) or catalog.json itself, and a registry not built yet.
func (c *Client) catalogHint(err error) string {
	var he *HTTPError
	if errors.As(err, &he) && he.Code == http.StatusNotFound {
		return "the marketplace index (--registry, SPIRIT_REGISTRY) is the URL of the folder that serves catalog.json; a registry repository serves it from its registry/ folder"
	}
	if c.src.Kind != KindDir {
		return ""
	}
	dir := c.src.Dir
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return "the marketplace index is the folder that holds catalog.json, not the file: --registry " + filepath.Dir(dir)
	}
	if !errors.Is(err, ErrNotFound) {
		return ""
	}
	switch {
	case exists(filepath.Join(dir, "registry", "catalog.json")):
		return "catalog.json is in the registry folder of the repository: --registry " + filepath.Join(dir, "registry")
	case exists(filepath.Join(dir, "registry", "extensions")):
		return "the registry has no catalog.json yet: run spirit registry build --root " + dir + ", then use --registry " + filepath.Join(dir, "registry")
	case filepath.Base(dir) == "registry" && exists(filepath.Join(dir, "extensions")):
		return "the registry has no catalog.json yet: run spirit registry build --root " + filepath.Dir(dir)
	}
	return "the marketplace index (--registry, SPIRIT_REGISTRY) is the folder that holds catalog.json: the registry/ folder of a registry repository, once spirit registry build wrote it"
}

// NotInCatalogError says the catalog has no such extension.
type NotInCatalogError struct{ ID string }

func (e *NotInCatalogError) Error() string {
	return "Extension not found in marketplace catalog: " + e.ID
}

// Is matches ErrNotFound.
func (e *NotInCatalogError) Is(target error) bool { return target == ErrNotFound }

// Item returns the catalog item of id (an extensionId, or a packageName).
func (c *Client) Item(ctx context.Context, id string) (*Item, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, errors.New("Extension id must not be empty.")
	}
	cat, err := c.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	it := cat.Find(id)
	if it == nil {
		return nil, &NotInCatalogError{ID: id}
	}
	return it, nil
}

// Detail returns the parsed detail.json of id, checked against its
// catalog item.
func (c *Client) Detail(ctx context.Context, id string) (*Detail, *Item, error) {
	it, err := c.Item(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if d := c.details[it.ExtensionID]; d != nil {
		return d, it, nil
	}
	loc, _, err := c.resolve(ctx, it.DetailPath, "marketplace detail")
	if err != nil {
		return nil, nil, err
	}
	data, served, origin, err := c.getSigned(ctx, loc, c.opts.Limits.JSON, "marketplace detail")
	if err != nil {
		return nil, nil, err
	}
	d, err := ParseDetail(data)
	if err != nil {
		return nil, nil, err
	}
	if served != nil {
		relocate(d, served)
	}
	if d.ExtensionID != it.ExtensionID {
		return nil, nil, &DocumentError{"marketplace detail",
			fmt.Sprintf("marketplace detail extension id mismatch: expected %s, got %s", it.ExtensionID, d.ExtensionID)}
	}
	if d.PackageName != it.PackageName {
		return nil, nil, &DocumentError{"marketplace detail",
			fmt.Sprintf("marketplace detail package name mismatch: expected %s, got %s", it.PackageName, d.PackageName)}
	}
	d.Origin = origin
	d.Signature = c.sig
	d.Warnings = append(originWarning(origin, "marketplace detail of "+it.ExtensionID), d.Warnings...)
	c.details[it.ExtensionID] = d
	return d, it, nil
}

// ErrNoReadme: the detail names no README.
var ErrNoReadme = errors.New("the extension has no README")

// Readme returns the raw README of id.
func (c *Client) Readme(ctx context.Context, id string) (string, []Warning, error) {
	d, it, err := c.Detail(ctx, id)
	if err != nil {
		return "", nil, err
	}
	if d.ReadmePath == "" {
		return "", nil, fmt.Errorf("%w: %s", ErrNoReadme, it.ExtensionID)
	}
	loc, _, err := c.resolve(ctx, d.ReadmePath, "extension README")
	if err != nil {
		return "", nil, err
	}
	data, _, origin, err := c.getSigned(ctx, loc, c.opts.Limits.Readme, "extension README")
	if err != nil {
		return "", nil, err
	}
	return string(data), originWarning(origin, "README of "+it.ExtensionID), nil
}
