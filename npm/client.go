package npm

import (
	"context"
	"errors"
	"net/http"
	"os"

	"github.com/spiritagents/spirit/fetch"
)

// Config configures a Client. The zero value talks to the public registry
// without a cache.
type Config struct {
	// Registry is --npm-registry; "" → npm_config_registry / NPM_CONFIG_REGISTRY
	// → the project .npmrc → ~/.npmrc → https://registry.npmjs.org/.
	Registry string
	// Getenv reads the environment; nil → os.Getenv.
	Getenv func(string) string
	// HomeDir and WorkDir are where ~/.npmrc and the project .npmrc are looked up.
	HomeDir, WorkDir string
	// CacheDir holds packuments and tarballs (<host>/.spirit/cache); "" → no cache.
	CacheDir string
	// HTTPClient makes the requests; nil → fetch.NewHTTPClient().
	HTTPClient *http.Client
	// Offline uses only the cache.
	Offline bool
	// Limits bound every request (timeouts, retries) and cap a tarball
	// (MaxDownload); zero fields take the defaults of package fetch.
	Limits fetch.Limits
	// Progress receives download progress; nil is fine.
	Progress fetch.Progress
	// AllowSHA1 accepts a tarball that only a sha1 digest verifies.
	AllowSHA1 bool
}

// Client talks to npm registries. It is safe for concurrent use.
type Client struct {
	cfg      Config
	set      *settings
	fetch    *fetch.Client
	progress progress
}

// maxPackumentSize caps a packument (some popular packages' are over 100 MiB).
const maxPackumentSize = 256 << 20

// NewClient reads the configuration (environment and .npmrc files) and
// returns a Client.
func NewClient(cfg Config) (*Client, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	cfg.Limits = cfg.Limits.WithDefaults()
	set, err := loadSettings(cfg, cfg.Getenv)
	if err != nil {
		return nil, err
	}
	fc := fetch.New(fetch.Options{HTTP: cfg.HTTPClient, Limits: cfg.Limits, Auth: set.authFor, UserAgent: "spirit (npm registry client)"})
	return &Client{cfg: cfg, set: set, fetch: fc, progress: progress{cfg.Progress}}, nil
}

// Registry returns the registry a package name is fetched from, without credentials.
func (c *Client) Registry(name string) string { return c.set.registryFor(name) }

// get performs GET url through the fetch layer; an unexpected status is an
// *HTTPError. The caller closes the body.
func (c *Client) get(ctx context.Context, rawURL string, header http.Header) (*fetch.Response, error) {
	resp, err := c.fetch.Get(ctx, rawURL, header)
	return resp, asHTTPError(err)
}

// asHTTPError turns the fetch layer's *fetch.HTTPError into this
// package's *HTTPError, which matches ErrNotFound and ErrUnauthorized.
func asHTTPError(err error) error {
	var he *fetch.HTTPError
	if errors.As(err, &he) {
		return &HTTPError{Status: he.Status, URL: he.URL, err: err}
	}
	return err
}
