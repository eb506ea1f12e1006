package npm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"time"
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
	// HTTPClient makes the requests; nil → a client with connect and TLS
	// timeouts that honours HTTPS_PROXY/NO_PROXY.
	HTTPClient *http.Client
	// Offline uses only the cache.
	Offline bool
	// MaxTarballSize caps a tarball; 0 → 100 MiB.
	MaxTarballSize int64
	// Progress receives download progress; nil is fine.
	Progress Progress
	// AllowSHA1 accepts a tarball that only a sha1 digest verifies.
	AllowSHA1 bool
	// HeaderTimeout bounds the wait for response headers; 0 → 30 s.
	HeaderTimeout time.Duration
	// IdleTimeout bounds a pause while a body streams; 0 → 30 s.
	IdleTimeout time.Duration
	// RetryDelay is the pause before the second try, doubled before the
	// third; 0 → 500 ms.
	RetryDelay time.Duration
}

// Client talks to npm registries. It is safe for concurrent use.
type Client struct {
	cfg      Config
	set      *settings
	hc       *http.Client
	progress progress
}

const (
	defaultMaxTarball    = 100 << 20
	defaultHeaderTimeout = 30 * time.Second
	defaultIdleTimeout   = 30 * time.Second
	defaultRetryDelay    = 500 * time.Millisecond
	tries                = 3
	maxPackumentSize     = 256 << 20
)

// NewClient reads the configuration (environment and .npmrc files) and
// returns a Client.
func NewClient(cfg Config) (*Client, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.MaxTarballSize <= 0 {
		cfg.MaxTarballSize = defaultMaxTarball
	}
	if cfg.HeaderTimeout <= 0 {
		cfg.HeaderTimeout = defaultHeaderTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = defaultIdleTimeout
	}
	if cfg.RetryDelay <= 0 {
		cfg.RetryDelay = defaultRetryDelay
	}
	set, err := loadSettings(cfg, cfg.Getenv)
	if err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = DefaultHTTPClient()
	}
	return &Client{cfg: cfg, set: set, hc: hc, progress: progress{cfg.Progress}}, nil
}

// DefaultHTTPClient returns the client used when Config.HTTPClient is nil:
// proxies from the environment, a 10 s connect and TLS handshake timeout.
// Header and body timeouts are applied by the Client on every request.
func DefaultHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}}
}

// Registry returns the registry a package name is fetched from, without credentials.
func (c *Client) Registry(name string) string { return c.set.registryFor(name) }

// response is an open response whose body enforces the idle timeout.
type response struct {
	status int
	header http.Header
	body   io.ReadCloser
	url    string // redacted
}

// get performs GET url with the given headers, trying 3 times on network
// errors and 5xx. The caller closes the body. A non-2xx/304 status is
// returned as *HTTPError after the tries.
func (c *Client) get(ctx context.Context, rawURL string, header http.Header) (*response, error) {
	shown := Redact(rawURL)
	var lastErr error
	delay := c.cfg.RetryDelay
	for try := 0; try < tries; try++ {
		if try > 0 {
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-t.C:
			}
			delay *= 2
		}
		resp, err := c.once(ctx, rawURL, header)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			lastErr = fmt.Errorf("GET %s: %w", shown, scrub(err, rawURL, shown))
			continue
		}
		if resp.status >= 500 {
			resp.body.Close()
			lastErr = &HTTPError{Status: resp.status, URL: shown}
			continue
		}
		if resp.status == http.StatusNotModified || resp.status/100 == 2 {
			return resp, nil
		}
		resp.body.Close()
		return nil, &HTTPError{Status: resp.status, URL: shown}
	}
	return nil, fmt.Errorf("%w (after %d tries)", lastErr, tries)
}

// once makes one request, bounding the wait for headers and each pause
// of the body.
func (c *Client) once(ctx context.Context, rawURL string, header http.Header) (*response, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		cancel(nil)
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = slices.Clone(v)
	}
	req.Header.Set("User-Agent", "spirit (npm registry client)")
	if a := c.set.authFor(rawURL); a != "" {
		req.Header.Set("Authorization", a)
	}
	timer := time.AfterFunc(c.cfg.HeaderTimeout, func() {
		cancel(fmt.Errorf("no response headers within %s", c.cfg.HeaderTimeout))
	})
	resp, err := c.hc.Do(req)
	timer.Stop()
	if err != nil {
		cerr := context.Cause(ctx)
		cancel(nil)
		if cerr != nil && !errors.Is(cerr, context.Canceled) {
			return nil, cerr
		}
		return nil, err
	}
	idle := c.cfg.IdleTimeout
	body := &idleBody{rc: resp.Body, cancel: cancel, ctx: ctx, idle: idle}
	body.timer = time.AfterFunc(idle, func() {
		cancel(fmt.Errorf("%w: no data for %s", errIdle, idle))
	})
	return &response{status: resp.StatusCode, header: resp.Header, body: body, url: Redact(rawURL)}, nil
}

var errIdle = errors.New("download stalled")

// idleBody cancels its request when no byte arrives for idle.
type idleBody struct {
	rc     io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	idle   time.Duration
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.timer.Reset(b.idle)
	}
	if err != nil && err != io.EOF {
		if cause := context.Cause(b.ctx); cause != nil && errors.Is(cause, errIdle) {
			return n, cause
		}
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	err := b.rc.Close()
	b.cancel(nil)
	return err
}

// scrub makes sure an error's text does not repeat the URL with its
// credentials (net/http already redacts passwords; this is a second guard).
func scrub(err error, rawURL, shown string) error {
	if rawURL == shown {
		return err
	}
	return &scrubbed{err: err, raw: rawURL, shown: shown}
}

type scrubbed struct {
	err        error
	raw, shown string
}

func (e *scrubbed) Error() string { return replaceAll(e.err.Error(), e.raw, e.shown) }
func (e *scrubbed) Unwrap() error { return e.err }
