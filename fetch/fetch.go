// Package fetch is spirit's one HTTP download layer. The npm client, the
// marketplace client and URL installs all fetch through it, so every
// download keeps the same rules:
//
//   - one set of Limits: a wait for response headers, an idle timeout while
//     a body streams, an overall deadline, a size cap, and retries with a
//     growing pause on connection errors, 5xx and bodies that break off;
//   - no redirect from https down to http (a *RedirectError names both
//     URLs); plain http is followed only where the download started on it;
//   - credentials (an Authorization header from Options.Auth, or the
//     user:password of the URL) are sent only to the scheme, host, port and
//     path prefix they belong to, and are asked for again at every redirect:
//     one that leaves that scope goes without them;
//   - no error or recorded URL carries a password (Redact).
package fetch

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Errors of a download, matched with errors.Is.
var (
	// ErrTooLarge: a response is larger than its cap.
	ErrTooLarge = errors.New("too large")
	// ErrStalled: no byte of a body arrived for Limits.IdleTimeout.
	ErrStalled = errors.New("download stalled")
	// ErrDeadline: a download did not end within Limits.Timeout.
	ErrDeadline = errors.New("download deadline exceeded")
	// ErrHeaderTimeout: no response headers within Limits.HeaderTimeout.
	ErrHeaderTimeout = errors.New("no response headers")
	// ErrInsecureRedirect: a redirect from https to plain http was refused.
	ErrInsecureRedirect = errors.New("redirect from https to http refused")
	// ErrInvalidURL: the URL cannot be parsed.
	ErrInvalidURL = errors.New("invalid URL")
)

// HTTPError is an unexpected HTTP status. Its URL never carries credentials.
type HTTPError struct {
	Status int
	Text   string // e.g. "404 Not Found"
	URL    string
}

func (e *HTTPError) Error() string { return fmt.Sprintf("GET %s: HTTP %d", e.URL, e.Status) }

// RedirectError is a refused redirect; From and To are redacted.
type RedirectError struct{ From, To string }

func (e *RedirectError) Error() string {
	return fmt.Sprintf("refusing the redirect from %s to %s: an https download never continues over plain http", e.From, e.To)
}

// Is makes a RedirectError match ErrInsecureRedirect.
func (e *RedirectError) Is(target error) bool { return target == ErrInsecureRedirect }

// Options configure a Client.
type Options struct {
	// HTTP makes the requests; nil → NewHTTPClient(). Its CheckRedirect is
	// replaced by the policy of this package.
	HTTP *http.Client
	// Limits bound each download; zero fields take their defaults.
	Limits Limits
	// Auth returns the Authorization header for a request URL, "" for none.
	// It is asked for the first URL and again at every redirect.
	Auth func(*url.URL) string
	// UserAgent is sent with every request; "" → "spirit".
	UserAgent string
}

// Client makes GET requests under one set of Limits. It is safe for
// concurrent use.
type Client struct {
	hc     *http.Client
	limits Limits
	auth   func(*url.URL) string
	agent  string
	swept  sync.Map // dir + "\x00" + pattern → struct{}: swept by sweepOnce
}

// New returns a Client.
func New(o Options) *Client {
	hc := o.HTTP
	if hc == nil {
		hc = NewHTTPClient()
	}
	if o.UserAgent == "" {
		o.UserAgent = "spirit"
	}
	return &Client{hc: hc, limits: o.Limits.WithDefaults(), auth: o.Auth, agent: o.UserAgent}
}

// Limits returns the client's limits, defaults filled in.
func (c *Client) Limits() Limits { return c.limits }

// NewHTTPClient returns the transport spirit uses: proxies from the
// environment (HTTPS_PROXY, NO_PROXY), 10 s to connect and for the TLS
// handshake, keep-alive with enough idle connections per host for the
// registry builder's 16 concurrent fetches. Header, idle and overall
// timeouts are applied by Client on each request.
func NewHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}}
}

// Response is an open response. Its Body enforces the idle timeout and the
// overall deadline; the caller closes it.
type Response struct {
	Status int
	// StatusText is the status line's text, e.g. "404 Not Found".
	StatusText string
	Header     http.Header
	Body       io.ReadCloser
	// URL is the requested URL, redacted.
	URL string
	// Final is the URL that answered, after redirects, without user
	// information (not redacted otherwise: do not print it).
	Final *url.URL
}

// ContentLength is the announced size of the body, -1 when unknown.
func (r *Response) ContentLength() int64 {
	n, err := strconv.ParseInt(r.Header.Get("Content-Length"), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// ReadAll reads the body, refusing more than limit bytes with ErrTooLarge.
func (r *Response) ReadAll(limit int64) ([]byte, error) {
	if n := r.ContentLength(); n > limit {
		return nil, fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, r.URL, n, limit)
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", r.URL, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: %s is larger than the limit of %d bytes", ErrTooLarge, r.URL, limit)
	}
	return data, nil
}

// Get performs GET rawURL with header, trying again on connection errors
// and 5xx. It returns 2xx and 304 responses; any other status is an
// *HTTPError. The whole exchange, body included, must end within
// Limits.Timeout.
func (c *Client) Get(ctx context.Context, rawURL string, header http.Header) (*Response, error) {
	u, auth, err := c.prepare(rawURL)
	if err != nil {
		return nil, err
	}
	shown := Redact(u.String())
	dctx, cancel := c.withDeadline(ctx, shown)
	resp, err := c.get(dctx, ctx, u, header, auth)
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &closeFunc{ReadCloser: resp.Body, after: cancel}
	return resp, nil
}

// Download describes a download into a temporary file.
type Download struct {
	URL    string
	Header http.Header
	// Dir and Pattern make the file, as os.CreateTemp; Dir "" → os.TempDir().
	Dir, Pattern string
	// Limit caps the body; 0 → Limits.MaxDownload.
	Limit int64
	// Tee, when set, is called at the start of each try with the announced
	// size (-1 when unknown) and returns a writer that sees the bytes too
	// (a hash, progress).
	Tee func(total int64) io.Writer
}

// DownloadFile streams d.URL into a new file and returns its path; the
// caller removes it. A body that breaks off is fetched again (Limits.Tries
// in all); a failure, cancellation included, leaves no file behind, and
// partial files of d.Pattern that a killed process left in d.Dir more
// than StaleAfter ago are removed.
func (c *Client) DownloadFile(ctx context.Context, d Download) (string, error) {
	u, auth, err := c.prepare(d.URL)
	if err != nil {
		return "", err
	}
	if d.Limit <= 0 {
		d.Limit = c.limits.MaxDownload
	}
	dctx, cancel := c.withDeadline(ctx, Redact(u.String()))
	defer cancel()
	delay := c.limits.RetryDelay
	for try := 1; ; try++ {
		path, err := c.downloadOnce(dctx, ctx, u, auth, d)
		var be *bodyError
		if err == nil || !errors.As(err, &be) || dctx.Err() != nil {
			return path, err
		}
		if try >= c.limits.Tries {
			return "", fmt.Errorf("%w (after %d tries)", err, try)
		}
		if err := sleep(dctx, ctx, delay); err != nil {
			return "", err
		}
		delay *= 2
	}
}

// bodyError is a body that broke off part way: worth another try.
type bodyError struct{ err error }

func (e *bodyError) Error() string { return e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

func (c *Client) downloadOnce(ctx, parent context.Context, u *url.URL, auth func(*url.URL) string, d Download) (path string, err error) {
	resp, err := c.get(ctx, parent, u, d.Header, auth)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.Status != http.StatusOK {
		return "", &HTTPError{Status: resp.Status, Text: resp.StatusText, URL: resp.URL}
	}
	total := resp.ContentLength()
	if total > d.Limit {
		return "", fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, resp.URL, total, d.Limit)
	}
	c.sweepOnce(d.Dir, d.Pattern)
	f, err := os.CreateTemp(d.Dir, d.Pattern)
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	var w io.Writer = f
	if d.Tee != nil {
		w = io.MultiWriter(f, d.Tee(total))
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, d.Limit+1))
	switch {
	case err != nil && parent.Err() != nil:
		return "", parent.Err()
	case err != nil && errors.Is(err, ErrDeadline):
		return "", err
	case err != nil:
		return "", &bodyError{fmt.Errorf("GET %s: %w", resp.URL, err)}
	case n > d.Limit:
		return "", fmt.Errorf("%w: %s is larger than the limit of %d bytes", ErrTooLarge, resp.URL, d.Limit)
	}
	return f.Name(), f.Close()
}

// prepare parses rawURL and takes any user:password out of it: the
// request URL never carries it, and it is sent as basic auth only within
// the URL's scope.
func (c *Client) prepare(rawURL string) (*url.URL, func(*url.URL) string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return nil, nil, fmt.Errorf("%w: %s", ErrInvalidURL, Redact(rawURL))
	}
	auth := c.auth
	if auth == nil {
		auth = func(*url.URL) string { return "" }
	}
	if u.User == nil {
		return u, auth, nil
	}
	pass, _ := u.User.Password()
	header := "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass))
	u = StripUser(u)
	scope := ScopeOf(u)
	inner := auth
	return u, func(t *url.URL) string {
		if scope.Contains(t) {
			return header
		}
		return inner(t)
	}, nil
}

func (c *Client) withDeadline(ctx context.Context, shown string) (context.Context, context.CancelFunc) {
	t := c.limits.Timeout
	return context.WithTimeoutCause(ctx, t,
		fmt.Errorf("%w: %s did not complete within %s (%s raises it)", ErrDeadline, shown, t, TimeoutEnv))
}

// get is Get within a deadline context already made; parent is the
// caller's own context, whose cancellation is returned as it is.
func (c *Client) get(ctx, parent context.Context, u *url.URL, header http.Header, auth func(*url.URL) string) (*Response, error) {
	shown := Redact(u.String())
	var lastErr error
	delay := c.limits.RetryDelay
	for try := 0; try < c.limits.Tries; try++ {
		if try > 0 {
			if err := sleep(ctx, parent, delay); err != nil {
				return nil, err
			}
			delay *= 2
		}
		resp, err := c.once(ctx, u, header, auth)
		if err != nil {
			if parent.Err() != nil {
				return nil, parent.Err()
			}
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			lastErr = fmt.Errorf("GET %s: %w", shown, err)
			if errors.Is(err, ErrInsecureRedirect) || errors.Is(err, errTooManyRedirects) {
				return nil, lastErr
			}
			continue
		}
		if resp.Status >= 500 {
			resp.Body.Close()
			lastErr = &HTTPError{Status: resp.Status, Text: resp.StatusText, URL: shown}
			continue
		}
		if resp.Status == http.StatusNotModified || resp.Status/100 == 2 {
			return resp, nil
		}
		resp.Body.Close()
		return nil, &HTTPError{Status: resp.Status, Text: resp.StatusText, URL: shown}
	}
	return nil, fmt.Errorf("%w (after %d tries)", lastErr, c.limits.Tries)
}

func sleep(ctx, parent context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		if parent.Err() != nil {
			return parent.Err()
		}
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

var errTooManyRedirects = errors.New("stopped after 10 redirects")

// once makes one request, bounding the wait for headers and each pause of
// the body.
func (c *Client) once(ctx context.Context, u *url.URL, header http.Header, auth func(*url.URL) string) (*Response, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		cancel(nil)
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = slices.Clone(v)
	}
	req.Header.Set("User-Agent", c.agent)
	if a := auth(u); a != "" {
		req.Header.Set("Authorization", a)
	}
	hc := *c.hc
	hc.CheckRedirect = func(next *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errTooManyRedirects
		}
		prev := via[len(via)-1].URL
		if prev.Scheme == "https" && next.URL.Scheme != "https" {
			return &RedirectError{From: Redact(prev.String()), To: Redact(next.URL.String())}
		}
		// net/http keeps Authorization on a redirect to the same host on any
		// port; the credential goes only where auth says it belongs.
		next.Header.Del("Authorization")
		if a := auth(next.URL); a != "" {
			next.Header.Set("Authorization", a)
		}
		return nil
	}
	h := c.limits.HeaderTimeout
	timer := time.AfterFunc(h, func() {
		cancel(fmt.Errorf("%w within %s from %s", ErrHeaderTimeout, h, Redact(u.String())))
	})
	resp, err := hc.Do(req)
	timer.Stop()
	if err != nil {
		cerr := context.Cause(ctx)
		cancel(nil)
		var re *RedirectError
		if errors.As(err, &re) {
			return nil, re
		}
		if errors.Is(err, errTooManyRedirects) {
			return nil, errTooManyRedirects
		}
		if cerr != nil && !errors.Is(cerr, context.Canceled) {
			return nil, cerr
		}
		return nil, err
	}
	idle := c.limits.IdleTimeout
	body := &idleBody{rc: resp.Body, cancel: cancel, ctx: ctx, idle: idle}
	body.timer = time.AfterFunc(idle, func() {
		cancel(fmt.Errorf("%w: no data from %s for %s", ErrStalled, Redact(u.String()), idle))
	})
	return &Response{Status: resp.StatusCode, StatusText: resp.Status, Header: resp.Header, Body: body, URL: Redact(u.String()), Final: StripUser(resp.Request.URL)}, nil
}

// idleBody cancels its request when no byte arrives for idle, and reports
// why a read failed when its context was cancelled with a cause.
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
	// Even io.EOF: net/http can end a cancelled body with io.EOF when the
	// server, seeing the connection close, finished the response in the
	// moment before the socket shut. A body cut off by a stall or the
	// deadline is never complete.
	if err != nil {
		if cause := context.Cause(b.ctx); cause != nil && !errors.Is(cause, context.Canceled) {
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

type closeFunc struct {
	io.ReadCloser
	after func()
}

func (c *closeFunc) Close() error {
	err := c.ReadCloser.Close()
	c.after()
	return err
}

// Scope is where a credential may be sent: one scheme, host and port, and
// the paths under Path (which ends in "/").
type Scope struct{ Scheme, Host, Path string }

// ScopeOf returns the scope of a URL: its scheme, host and port, and the
// folder of its path.
func ScopeOf(u *url.URL) Scope {
	p := u.EscapedPath()
	if i := strings.LastIndex(p, "/"); i >= 0 {
		p = p[:i+1]
	} else {
		p = "/"
	}
	return Scope{Scheme: u.Scheme, Host: HostPort(u), Path: p}
}

// Contains says whether a credential of s may be sent to t.
func (s Scope) Contains(t *url.URL) bool {
	return t.Scheme == s.Scheme && HostPort(t) == s.Host && strings.HasPrefix(t.EscapedPath(), s.Path)
}

// HostPort returns the lower-case host of u with its port, the scheme's
// default port made explicit, so that host and host:443 compare equal.
func HostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// StripUser returns a copy of u without user information.
func StripUser(u *url.URL) *url.URL {
	v := *u
	v.User = nil
	return &v
}

// Redact returns rawURL without its user information (user and password
// both: a user name may be a token) and with the values of query (and
// fragment) parameters that carry credentials replaced by "REDACTED":
// names holding token, secret, password, passwd, signature or credential,
// or ending in key (access_token, X-Amz-Signature, api_key…), and sig,
// auth and pwd.
// A URL without any is returned as it is, and a string that is not a URL
// as "<invalid URL>" when it may hold credentials.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		if strings.Contains(rawURL, "@") || secretParams(rawURL) {
			return "<invalid URL>"
		}
		return rawURL
	}
	hasUser := u.User != nil && u.User.String() != ""
	query, qChanged := redactParams(u.RawQuery)
	frag, fChanged := redactParams(u.EscapedFragment())
	if !hasUser && !qChanged && !fChanged {
		return rawURL
	}
	if hasUser && u.Host == "" { // user information without a host: not a URL anything fetches
		return "<invalid URL>"
	}
	if hasUser {
		u = StripUser(u)
	}
	u.RawQuery = query
	if fChanged {
		if u.Fragment, err = url.PathUnescape(frag); err != nil {
			return "<invalid URL>"
		}
		u.RawFragment = frag
	}
	return u.String()
}

// redacted replaces the value of a parameter that carries a credential.
const redacted = "REDACTED"

// redactParams replaces the values of credential parameters in raw (a
// query or fragment, "&"- or ";"-separated name=value pairs) and reports
// whether it changed anything; everything else is kept byte for byte.
func redactParams(raw string) (string, bool) {
	if !strings.Contains(raw, "=") {
		return raw, false
	}
	parts := strings.FieldsFunc(raw, func(r rune) bool { return r == '&' || r == ';' })
	if len(parts) == 0 {
		return raw, false
	}
	var b strings.Builder
	changed := false
	last := 0
	for _, part := range parts {
		i := strings.Index(raw[last:], part) + last
		b.WriteString(raw[last:i])
		last = i + len(part)
		name, value, ok := strings.Cut(part, "=")
		if ok && value != redacted && secretName(name) {
			b.WriteString(name + "=" + redacted)
			changed = true
			continue
		}
		b.WriteString(part)
	}
	b.WriteString(raw[last:])
	return b.String(), changed
}

// secretParams reports whether a string that does not parse as a URL has a
// credential parameter after its first "?" or "#".
func secretParams(s string) bool {
	i := strings.IndexAny(s, "?#")
	if i < 0 {
		return false
	}
	_, changed := redactParams(strings.ReplaceAll(s[i+1:], "#", "&"))
	return changed
}

// secretName reports whether a query parameter name carries a credential.
func secretName(name string) bool {
	if n, err := url.QueryUnescape(name); err == nil {
		name = n
	}
	name = strings.ToLower(strings.TrimSpace(name))
	switch name {
	case "sig", "auth", "pwd":
		return true
	}
	for _, w := range []string{"token", "secret", "password", "passwd", "signature", "credential"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return strings.HasSuffix(name, "key")
}
