package catalog

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/npm"
)

func newClient(t *testing.T, source, cache string, mod func(*Options)) *Client {
	t.Helper()
	o := Options{Source: source, CacheDir: cache}
	if mod != nil {
		mod(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestHTTPRevalidateWithETag(t *testing.T) {
	srv := newRegistryServer(t, fixtureRoot)
	cache := tempdir.New(t)
	ctx := context.Background()

	c1 := newClient(t, srv.URL, cache, nil) // MaxAge 0: always revalidate
	cat, err := c1.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Origin.FromCache || len(cat.Items) != len(fixtureExtensions()) {
		t.Fatalf("first fetch: origin %+v, %d items", cat.Origin, len(cat.Items))
	}
	c2 := newClient(t, srv.URL, cache, nil)
	cat2, err := c2.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !cat2.Origin.Revalidated || !cat2.Origin.FromCache {
		t.Fatalf("second fetch not revalidated: %+v", cat2.Origin)
	}
	if srv.Hits("/catalog.json") != 2 || srv.NotModified() != 1 || len(srv.IfNoneMatch()) != 1 {
		t.Fatalf("hits %d, 304s %d, If-None-Match %v", srv.Hits("/catalog.json"), srv.NotModified(), srv.IfNoneMatch())
	}
	if len(cat2.Items) != len(cat.Items) {
		t.Fatalf("cached catalog differs")
	}

	// Within MaxAge no request is made at all.
	c3 := newClient(t, srv.URL, cache, func(o *Options) { o.MaxAge = time.Hour })
	if _, err := c3.Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	if srv.Hits("/catalog.json") != 2 {
		t.Fatalf("fresh cache still asked the server: %d", srv.Hits("/catalog.json"))
	}

	// A changed catalog is fetched again, not taken from the cache.
	srv.Override("/catalog.json", []byte(`{"schemaVersion":1,"items":[]}`))
	cat4, err := newClient(t, srv.URL, cache, nil).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat4.Items) != 0 || cat4.Origin.FromCache {
		t.Fatalf("changed catalog: %d items, %+v", len(cat4.Items), cat4.Origin)
	}
}

func TestOfflineFallback(t *testing.T) {
	srv := newRegistryServer(t, fixtureRoot)
	cache := tempdir.New(t)
	ctx := context.Background()
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	if _, err := newClient(t, srv.URL, cache, func(o *Options) { o.Now = now }).Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := newClient(t, srv.URL, cache, func(o *Options) { o.Now = now }).Readme(ctx, "fixture.hello"); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(3 * time.Hour)

	tests := []struct {
		name   string
		break_ func()
	}{
		{"server error", func() { srv.SetStatus(503) }},
		{"server gone", func() { srv.Close() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.break_()
			c := newClient(t, srv.URL, cache, func(o *Options) {
				o.Now = now
				o.Fetch.HeaderTimeout = 2 * time.Second
				o.Fetch.RetryDelay = time.Millisecond
			})
			cat, err := c.Catalog(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !cat.Origin.Stale || cat.Origin.Age != 3*time.Hour {
				t.Fatalf("origin %+v", cat.Origin)
			}
			if len(cat.Warnings) == 0 || !strings.Contains(cat.Warnings[0].Message, "cached copy from 3h0m0s ago") {
				t.Fatalf("warnings %v", cat.Warnings)
			}
			text, ws, err := c.Readme(ctx, "fixture.hello")
			if err != nil || !strings.HasPrefix(text, "# Hello") || len(ws) != 1 {
				t.Fatalf("readme %q %v %v", text, ws, err)
			}
			// Something never fetched is an error, not a silent empty result.
			if _, _, err := c.Detail(ctx, "fixture.revoked"); err == nil {
				t.Fatal("uncached detail: no error")
			}
		})
	}

	// --offline uses the cache without asking, and says what it lacks.
	c := newClient(t, srv.URL, cache, func(o *Options) { o.Offline = true })
	if _, err := c.Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Detail(ctx, "fixture.revoked"); !errors.Is(err, ErrOffline) {
		t.Fatalf("offline miss: %v", err)
	}
}

func TestSizeCaps(t *testing.T) {
	ctx := context.Background()
	for _, chunked := range []bool{false, true} {
		name := "content-length"
		if chunked {
			name = "streamed"
		}
		t.Run(name, func(t *testing.T) {
			srv := newRegistryServer(t, fixtureRoot)
			srv.SetChunked(chunked)
			c := newClient(t, srv.URL, tempdir.New(t), func(o *Options) { o.Limits = Limits{Catalog: 2000, JSON: 1000, Readme: 10} })
			if _, err := c.Catalog(ctx); !errors.Is(err, ErrTooLarge) {
				t.Fatalf("catalog: %v", err)
			}
			c = newClient(t, srv.URL, tempdir.New(t), func(o *Options) { o.Limits = Limits{JSON: 1000, Readme: 10} })
			if _, _, err := c.Detail(ctx, "fixture.hello"); !errors.Is(err, ErrTooLarge) {
				t.Fatalf("detail: %v", err)
			}
			if _, _, err := c.Readme(ctx, "fixture.unverified"); !errors.Is(err, ErrTooLarge) {
				t.Fatalf("readme: %v", err)
			}
		})
	}
	// A folder registry has the same caps.
	c := newClient(t, fixtureRoot, "", func(o *Options) { o.Limits = Limits{Catalog: 100} })
	if _, err := c.Catalog(ctx); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("folder catalog: %v", err)
	}
}

func TestHeaderTimeout(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	defer srv.Close()
	defer close(block)
	c := newClient(t, srv.URL, tempdir.New(t), func(o *Options) { o.Fetch.HeaderTimeout = 100 * time.Millisecond })
	start := time.Now()
	_, err := c.Catalog(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no response headers within 100ms") || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %s", err, time.Since(start))
	}
}

func TestParseSource(t *testing.T) {
	abs, _ := filepath.Abs("reg")
	tests := []struct {
		name, in   string
		kind, want string
		err        error
	}{
		{name: "default", in: "", kind: KindURL, want: DefaultRegistry},
		{name: "https adds slash", in: "https://mirror.example/reg", kind: KindURL, want: "https://mirror.example/reg/"},
		{name: "http loopback", in: "http://127.0.0.1:8080/r/", kind: KindURL, want: "http://127.0.0.1:8080/r/"},
		{name: "http localhost", in: "http://localhost/r/", kind: KindURL, want: "http://localhost/r/"},
		{name: "http ipv6 loopback", in: "http://[::1]:9/", kind: KindURL, want: "http://[::1]:9/"},
		{name: "http remote refused", in: "http://example.com/reg/", err: ErrInsecureURL},
		{name: "http lookalike refused", in: "http://127.0.0.1.example.com/", err: ErrInsecureURL},
		{name: "ftp refused", in: "ftp://example.com/", err: ErrInsecureURL},
		{name: "folder", in: "reg", kind: KindDir, want: abs},
		{name: "file URL", in: "file:///srv/reg", kind: KindDir, want: "/srv/reg"},
		{name: "git https", in: "git+https://github.com/SpiritAgents/registry.git#main", kind: KindGit, want: "git+https://github.com/SpiritAgents/registry.git#main"},
		{name: "git http remote refused", in: "git+http://example.com/r.git", err: ErrInsecureURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSource(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err %v, want %v", err, tt.err)
				}
				return
			}
			want := tt.want
			if tt.kind == KindDir {
				want = filepath.FromSlash(want) // a folder is a native path
			}
			if err != nil || s.Kind != tt.kind || s.String() != want {
				t.Fatalf("got %+v %q %v, want %q", s, s.String(), err, want)
			}
		})
	}
}

func TestResolveRef(t *testing.T) {
	base, _ := url.Parse("https://h.example/reg/")
	tests := []struct {
		name, ref string
		base      *url.URL
		want      string
		err       error
	}{
		{name: "relative", ref: "./extensions/a/detail.json", base: base, want: "https://h.example/reg/extensions/a/detail.json"},
		{name: "absolute https", ref: "https://cdn.example/x.tgz", base: base, want: "https://cdn.example/x.tgz"},
		{name: "absolute http remote", ref: "http://cdn.example/x.tgz", base: base, err: ErrInsecureURL},
		{name: "dotdot", ref: "../secret.json", base: base, err: ErrOutsideRegistry},
		{name: "encoded dotdot", ref: "a/%2e%2e/%2e%2e/x", base: base, err: ErrOutsideRegistry},
		{name: "rooted", ref: "/etc/passwd", base: base, err: ErrOutsideRegistry},
		{name: "folder", ref: "extensions/a/README.md", want: "/reg/extensions/a/README.md"},
		{name: "folder dotdot", ref: "extensions/../../x", err: ErrOutsideRegistry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, err := resolveRef(tt.ref, tt.base, "/reg", "test")
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err %v, want %v", err, tt.err)
				}
				return
			}
			want := tt.want
			if tt.base == nil {
				want = filepath.FromSlash(want) // a folder registry's file is a native path
			}
			if err != nil || loc.String() != want {
				t.Fatalf("got %q %v, want %q", loc.String(), err, want)
			}
		})
	}
}

func TestSourceFileName(t *testing.T) {
	tests := []struct{ name, url, want string }{
		{"npm", "https://registry.npmjs.org/@spiritagent/extension-system-message-demo/-/extension-system-message-demo-0.1.0.tgz", "extension-system-message-demo-0.1.0.tgz"},
		{"encoded traversal", "https://x.example/a/%2F..%2F..%2Fevil.tgz", "evil.tgz"},
		{"no name", "https://x.example/", "fixture.hello-1.0.0.tgz"},
		{"dotdot", "https://x.example/..", "fixture.hello-1.0.0.tgz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SourceFileName(tt.url, "fixture.hello", "1.0.0"); got != tt.want {
				t.Fatalf("got %q", got)
			}
		})
	}
	if got := SourceFileName("", "Ex ample/x", "1.0.0"); got != "Ex-ample-x-1.0.0.tgz" {
		t.Fatalf("fallback %q", got)
	}
}

// TestInstallPolicy prepares every fixture and applies the policy, over a
// folder and over HTTP.
func TestInstallPolicy(t *testing.T) {
	srv := newRegistryServer(t, fixtureRoot)
	sources := map[string]string{"folder": fixtureRoot, "http": srv.URL}
	tests := []struct {
		name, id string
		sel      Selector
		consent  Consent
		host     string
		version  string
		err      error
	}{
		{name: "default version", id: "fixture.hello", version: "1.1.0"},
		{name: "by package name", id: "@fixture/hello", version: "1.1.0"},
		{name: "exact", id: "fixture.hello", sel: Selector{Version: "1.0.0"}, version: "1.0.0"},
		{name: "channel preview", id: "fixture.hello", sel: Selector{Channel: "preview"}, version: "1.2.0-beta.1"},
		{name: "channel experimental unverified", id: "fixture.hello", sel: Selector{Channel: "experimental"}, err: ErrUnverified},
		{name: "channel experimental acked", id: "fixture.hello", sel: Selector{Channel: "experimental"}, consent: Consent{ReviewAcknowledged: true}, version: "2.0.0-alpha.1"},
		{name: "bad channel", id: "fixture.hello", sel: Selector{Channel: "nightly"}, err: ErrBadChannel},
		{name: "missing version", id: "fixture.hello", sel: Selector{Version: "3.0.0"}, err: ErrNoVersion},
		{name: "revoked version", id: "fixture.hello", sel: Selector{Version: "0.9.0"}, err: ErrRevoked},
		{name: "revoked ack is not enough", id: "fixture.revoked", consent: Consent{ReviewAcknowledged: true}, err: ErrRevoked},
		{name: "revoked allowed", id: "fixture.revoked", consent: Consent{AllowRevoked: true}, version: "1.0.0"},
		{name: "unverified", id: "fixture.unverified", err: ErrUnverified},
		{name: "blocked", id: "fixture.blocked", consent: Consent{ReviewAcknowledged: true, AllowRevoked: true}, err: ErrBlocked},
		{name: "hidden installable", id: "fixture.hidden", version: "1.0.0"},
		{name: "desktop only on cli", id: "fixture.desktop-only", err: ErrHostUnsupported},
		{name: "desktop only on desktop", id: "fixture.desktop-only", host: "desktop", version: "1.0.0"},
		{name: "bad item skipped", id: "fixture.bad", err: ErrNotFound},
	}
	for srcName, src := range sources {
		for _, tt := range tests {
			t.Run(srcName+"/"+tt.name, func(t *testing.T) {
				c := newClient(t, src, tempdir.New(t), nil)
				p, err := c.Prepare(context.Background(), tt.id, tt.sel)
				if err == nil {
					host := tt.host
					if host == "" {
						host = "cli"
					}
					err = p.Check(host, tt.consent)
				}
				if tt.err != nil {
					if !errors.Is(err, tt.err) {
						t.Fatalf("err %v, want %v", err, tt.err)
					}
					return
				}
				if err != nil || p.Version.Version != tt.version {
					t.Fatalf("got %v, %v", p, err)
				}
			})
		}
	}
}

func TestTarballVerification(t *testing.T) {
	srv := newRegistryServer(t, fixtureRoot)
	tests := []struct {
		name, id  string
		allowSHA1 bool
		err       error
	}{
		{name: "good", id: "fixture.hello"},
		{name: "tampered", id: "fixture.tampered", err: npm.ErrIntegrity},
		{name: "sha1 only", id: "fixture.sha1", err: npm.ErrWeakIntegrity},
		{name: "sha1 allowed", id: "fixture.sha1", allowSHA1: true},
	}
	for _, src := range []string{fixtureRoot, srv.URL} {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c := newClient(t, src, tempdir.New(t), nil)
				p, err := c.Prepare(context.Background(), tt.id, Selector{})
				if err != nil {
					t.Fatal(err)
				}
				tb, err := c.Tarball(context.Background(), p, tt.allowSHA1)
				if tt.err != nil {
					if !errors.Is(err, tt.err) {
						t.Fatalf("err %v, want %v", err, tt.err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				m, err := PackageManifest(tb.Path)
				if err != nil || m.ID != p.Item.PackageName || m.Version != p.Version.Version {
					t.Fatalf("manifest %+v %v", m, err)
				}
			})
		}
	}
	// A tarball over the cap is refused.
	c := newClient(t, srv.URL, tempdir.New(t), func(o *Options) { o.Fetch.MaxDownload = 100 })
	p, err := c.Prepare(context.Background(), "fixture.hello", Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tarball(context.Background(), p, false); !errors.Is(err, npm.ErrTooLarge) {
		t.Fatalf("cap: %v", err)
	}
}

// TestInsecureTarballURL: a detail naming an http tarball on a remote host
// is refused before any download.
func TestInsecureTarballURL(t *testing.T) {
	dir := tempdir.New(t)
	writeFixtureRegistry(t, dir)
	file := filepath.Join(dir, "extensions/fixture.hello/detail.json")
	data := strings.Replace(string(mustRead(t, file)), `"tarballUrl": "tarballs/fixture-hello-1.1.0.tgz"`,
		`"tarballUrl": "http://example.com/fixture-hello-1.1.0.tgz"`, 1)
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, dir, "", nil)
	p, err := c.Prepare(context.Background(), "fixture.hello", Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check("cli", Consent{}); !errors.Is(err, ErrInsecureURL) {
		t.Fatalf("check: %v", err)
	}
	if _, err := c.Tarball(context.Background(), p, false); !errors.Is(err, ErrInsecureURL) {
		t.Fatalf("tarball: %v", err)
	}
}
