package npm

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spiritagents/spirit/fetch"
)

// fakeRegistry speaks the npm registry protocol: packuments (abbreviated
// or full by Accept, with ETags), tarballs, bearer tokens for a scope.
type fakeRegistry struct {
	t   *testing.T
	srv *httptest.Server

	mu           sync.Mutex
	pkgs         map[string]*fakePkg
	token        string // required for names starting with "@private/"
	abbreviated  bool   // honour the abbreviated Accept
	noAbbrevDist bool   // abbreviated documents lack dist
	refuseAbbrev bool   // answer 406 to the abbreviated Accept
	fail         int    // answer 503 to this many more requests
	keys         []byte // the keys document; nil → 404
	keyReqs      int    // requests of the keys endpoint
	stallBody    bool   // send half a tarball, then stall
	cutBody      int    // break this many more tarball responses off half way
	slowHeaders  time.Duration
	requests     []string // "METHOD path accept auth"
	auths        []string
	tgzEncodings []string // Accept-Encoding of tarball requests
}

type fakePkg struct {
	tags     map[string]string
	versions map[string][]byte // version → tarball
	dists    map[string]Dist   // overrides
}

func newFakeRegistry(t *testing.T) *fakeRegistry {
	r := &fakeRegistry{t: t, pkgs: map[string]*fakePkg{}, abbreviated: true}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *fakeRegistry) url() string { return r.srv.URL + "/" }

// tgz builds an npm tarball with package/package.json.
func tgz(t testing.TB, name, version string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	pj := fmt.Sprintf(`{"name":%q,"version":%q}`, name, version)
	tw.WriteHeader(&tar.Header{Name: "package/package.json", Mode: 0o644, Size: int64(len(pj))})
	tw.Write([]byte(pj))
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func (r *fakeRegistry) publish(name string, tags map[string]string, versions ...string) {
	p := &fakePkg{tags: tags, versions: map[string][]byte{}, dists: map[string]Dist{}}
	for _, v := range versions {
		p.versions[v] = tgz(r.t, name, v)
	}
	r.mu.Lock()
	r.pkgs[name] = p
	r.mu.Unlock()
}

func (r *fakeRegistry) tarballPath(name, version string) string {
	base := name[strings.LastIndex(name, "/")+1:]
	return "/" + name + "/-/" + base + "-" + version + ".tgz"
}

func (r *fakeRegistry) doc(name string, full bool) []byte {
	p := r.pkgs[name]
	vs := map[string]any{}
	for v, data := range p.versions {
		d := Dist{Tarball: r.srv.URL + r.tarballPath(name, v), Integrity: sri("sha512", data), Shasum: shasum(data)}
		if o, ok := p.dists[v]; ok {
			d = o
		}
		entry := map[string]any{"name": name, "version": v, "dist": d}
		if !full && r.noAbbrevDist {
			delete(entry, "dist")
		}
		if full {
			entry["description"] = "full"
		}
		vs[v] = entry
	}
	doc := map[string]any{"name": name, "dist-tags": p.tags, "versions": vs}
	if full {
		doc["time"] = map[string]string{"modified": "2024-01-01T00:00:00.000Z"}
	}
	b, _ := json.Marshal(doc)
	return b
}

func (r *fakeRegistry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	if strings.HasSuffix(req.URL.Path, "/-/npm/v1/keys") {
		// The keys endpoint is counted apart, so that the tests of
		// packuments and tarballs count what they are about.
		r.keyReqs++
		keys := r.keys
		r.mu.Unlock()
		if keys == nil {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(keys)
		return
	}
	auth := req.Header.Get("Authorization")
	r.requests = append(r.requests, req.Method+" "+req.URL.EscapedPath()+" "+req.Header.Get("Accept"))
	r.auths = append(r.auths, auth)
	if strings.Contains(req.URL.Path, "/-/") {
		r.tgzEncodings = append(r.tgzEncodings, req.Header.Get("Accept-Encoding"))
	}
	fail := r.fail > 0
	if fail {
		r.fail--
	}
	slow, stall := r.slowHeaders, r.stallBody
	cut := r.cutBody > 0 && strings.Contains(req.URL.Path, "/-/")
	if cut {
		r.cutBody--
	}
	r.mu.Unlock()
	if fail {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if slow > 0 {
		select {
		case <-time.After(slow):
		case <-req.Context().Done():
			return
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	path := req.URL.EscapedPath()
	if strings.HasPrefix(path, "/@private") && auth != "Bearer "+r.token {
		http.Error(w, `{"error":"authorization required"}`, http.StatusUnauthorized)
		return
	}
	if i := strings.Index(path, "/-/"); i > 0 {
		name := path[1:i]
		for v, data := range r.pkgs[name].versions {
			if r.tarballPath(name, v) == path {
				if cut {
					// Promise the whole tarball, send half, and drop the connection.
					conn, buf, err := w.(http.Hijacker).Hijack()
					if err != nil {
						r.t.Error(err)
						return
					}
					fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(data))
					buf.Write(data[:len(data)/2])
					buf.Flush()
					conn.Close()
					return
				}
				if stall {
					w.Header().Set("Content-Length", fmt.Sprint(len(data)))
					w.Write(data[:len(data)/2])
					w.(http.Flusher).Flush()
					<-req.Context().Done()
					return
				}
				w.Write(data)
				return
			}
		}
		http.NotFound(w, req)
		return
	}
	name := strings.Replace(strings.TrimPrefix(path, "/"), "%2f", "/", 1)
	if _, ok := r.pkgs[name]; !ok {
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		return
	}
	accept := req.Header.Get("Accept")
	abbrev := strings.HasPrefix(accept, "application/vnd.npm.install-v1+json")
	if abbrev && r.refuseAbbrev {
		http.Error(w, "not acceptable", http.StatusNotAcceptable)
		return
	}
	full := !(abbrev && r.abbreviated)
	body := r.doc(name, full)
	etag := fmt.Sprintf(`"%x-%v"`, len(body), full)
	if req.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", etag)
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

func (r *fakeRegistry) reqs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.requests...)
}

func (r *fakeRegistry) countTarballs() int {
	n := 0
	for _, q := range r.reqs() {
		if strings.Contains(q, "/-/") {
			n++
		}
	}
	return n
}

func newTestClient(t *testing.T, reg *fakeRegistry, cache string, mod func(*Config)) *Client {
	t.Helper()
	home := t.TempDir()
	cfg := Config{
		Registry: reg.url(), HomeDir: home, WorkDir: t.TempDir(), CacheDir: cache,
		Getenv: func(string) string { return "" },
		Limits: fetch.Limits{RetryDelay: time.Millisecond, HeaderTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second},
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustSpec(t *testing.T, s string) Spec {
	t.Helper()
	sp, err := ParseSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func TestResolve(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("plain", map[string]string{"latest": "1.2.0", "beta": "2.0.0-beta.1"}, "1.0.0", "1.2.0", "1.3.0", "2.0.0-beta.1")
	reg.publish("@scope/ext", map[string]string{"latest": "0.1.0"}, "0.1.0", "0.2.0")
	tests := []struct {
		name    string
		spec    string
		want    string
		wantErr error
	}{
		{name: "latest", spec: "npm:plain", want: "1.2.0"},
		{name: "range", spec: "plain@~1.3", want: "1.3.0"},
		{name: "tag", spec: "plain@beta", want: "2.0.0-beta.1"},
		{name: "prerelease range", spec: "plain@2.0.0-beta.1", want: "2.0.0-beta.1"},
		{name: "scoped latest", spec: "@scope/ext", want: "0.1.0"},
		{name: "scoped range", spec: "@scope/ext@^0.2", want: "0.2.0"},
		{name: "no match", spec: "plain@^5", wantErr: ErrNoMatchingVersion},
		{name: "unknown tag", spec: "plain@nope", wantErr: ErrNoMatchingVersion},
		{name: "not found", spec: "npm:missing", wantErr: ErrNotFound},
	}
	c := newTestClient(t, reg, t.TempDir(), nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := c.Resolve(context.Background(), mustSpec(t, tt.spec))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sp := mustSpec(t, tt.spec)
			if r.Name != sp.Name || r.Version != tt.want || r.Registry != reg.url() ||
				r.TarballURL != reg.srv.URL+reg.tarballPath(sp.Name, tt.want) || !strings.HasPrefix(r.Integrity, "sha512-") || r.Shasum == "" {
				t.Fatalf("Resolve = %+v", r)
			}
		})
	}
	for _, q := range reg.reqs() {
		if strings.Contains(q, "@scope/ext") {
			t.Errorf("scoped name not encoded: %s", q)
		}
	}
	if !strings.Contains(strings.Join(reg.reqs(), "\n"), "GET /@scope%2fext application/vnd.npm.install-v1+json") {
		t.Errorf("no abbreviated request for the scoped name: %v", reg.reqs())
	}
}

func TestResolveFallbackToFull(t *testing.T) {
	tests := []struct {
		name   string
		mod    func(*fakeRegistry)
		wantRq int
	}{
		{name: "registry refuses abbreviated", mod: func(r *fakeRegistry) { r.refuseAbbrev = true }, wantRq: 2},
		{name: "abbreviated without dist", mod: func(r *fakeRegistry) { r.noAbbrevDist = true }, wantRq: 2},
		{name: "registry ignores accept", mod: func(r *fakeRegistry) { r.abbreviated = false }, wantRq: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newFakeRegistry(t)
			reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
			tt.mod(reg)
			c := newTestClient(t, reg, "", nil)
			r, err := c.Resolve(context.Background(), mustSpec(t, "npm:p"))
			if err != nil {
				t.Fatal(err)
			}
			if r.Version != "1.0.0" || r.TarballURL == "" {
				t.Fatalf("Resolve = %+v", r)
			}
			if got := len(reg.reqs()); got != tt.wantRq {
				t.Errorf("%d requests, want %d: %v", got, tt.wantRq, reg.reqs())
			}
		})
	}
}

func TestETagRevalidation(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
	cache := t.TempDir()
	c := newTestClient(t, reg, cache, nil)
	for i := 0; i < 2; i++ {
		if _, err := c.Resolve(context.Background(), mustSpec(t, "npm:p")); err != nil {
			t.Fatal(err)
		}
		if _, err := c.FullPackument(context.Background(), "p"); err != nil {
			t.Fatal(err)
		}
	}
	reg.mu.Lock()
	n := len(reg.requests)
	reg.mu.Unlock()
	if n != 4 {
		t.Fatalf("%d requests, want 4", n)
	}
	// The handler answered 304 to the second round: the cached bodies were used.
	full, err := c.FullPackument(context.Background(), "p")
	if err != nil || !strings.Contains(string(full), `"description":"full"`) {
		t.Fatalf("FullPackument = %s, %v", full, err)
	}
	// Offline uses the cached documents, and names what is missing.
	off := newTestClient(t, reg, cache, func(c *Config) { c.Offline = true })
	before := len(reg.reqs())
	if _, err := off.Resolve(context.Background(), mustSpec(t, "npm:p")); err != nil {
		t.Fatal(err)
	}
	if _, err := off.Resolve(context.Background(), mustSpec(t, "npm:other")); !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), "other") {
		t.Fatalf("offline miss: %v", err)
	}
	if len(reg.reqs()) != before {
		t.Errorf("offline client made requests")
	}
}

func TestETag304(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
	var notModified int
	inner := reg.srv.Config.Handler
	reg.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		inner.ServeHTTP(rec, r)
		if rec.Code == http.StatusNotModified {
			notModified++
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
	c := newTestClient(t, reg, t.TempDir(), nil)
	for i := 0; i < 3; i++ {
		if _, err := c.FullPackument(context.Background(), "p"); err != nil {
			t.Fatal(err)
		}
	}
	if notModified != 2 {
		t.Errorf("%d answers were 304, want 2", notModified)
	}
}

func TestFetchTarball(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
	cache := t.TempDir()
	c := newTestClient(t, reg, cache, nil)
	r, err := c.Resolve(context.Background(), mustSpec(t, "npm:p"))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := c.FetchTarball(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(tb.Path)
	if !bytes.Equal(data, reg.pkgs["p"].versions["1.0.0"]) || tb.Integrity != sri("sha512", data) || tb.Cached || tb.Temporary {
		t.Fatalf("tarball %+v", tb)
	}
	if !strings.HasPrefix(tb.Path, cache) {
		t.Errorf("tarball %s not in the cache %s", tb.Path, cache)
	}
	// The second fetch, and an offline one, make no request.
	for _, cl := range []*Client{c, newTestClient(t, reg, cache, func(c *Config) { c.Offline = true })} {
		tb2, err := cl.FetchTarball(context.Background(), r)
		if err != nil || !tb2.Cached || tb2.Path != tb.Path || tb2.Integrity != tb.Integrity {
			t.Fatalf("second fetch: %+v, %v", tb2, err)
		}
	}
	if n := reg.countTarballs(); n != 1 {
		t.Errorf("%d tarball requests, want 1", n)
	}
	// A .tgz must not be compressed again in transit (Verdaccio would).
	if got := reg.tgzEncodings; len(got) != 1 || got[0] != "identity" {
		t.Errorf("tarball Accept-Encoding %q, want identity", got)
	}
	// A corrupted cache entry is detected, removed and fetched again.
	if err := os.WriteFile(tb.Path, []byte("corrupt"), 0o644); err != nil {
		t.Fatal(err)
	}
	tb3, err := c.FetchTarball(context.Background(), r)
	if err != nil || tb3.Cached {
		t.Fatalf("after corruption: %+v, %v", tb3, err)
	}
	// Offline with an empty cache names the tarball.
	off := newTestClient(t, reg, t.TempDir(), func(c *Config) { c.Offline = true })
	if _, err := off.FetchTarball(context.Background(), r); !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), "p@1.0.0") {
		t.Fatalf("offline miss: %v", err)
	}
}

func TestFetchTarballIntegrity(t *testing.T) {
	good := tgz(t, "p", "1.0.0")
	bad := tgz(t, "p", "6.6.6")
	tests := []struct {
		name      string
		dist      func(url string) Dist
		allowSHA1 bool
		wantErr   error
	}{
		{name: "sha512 mismatch", dist: func(u string) Dist { return Dist{Tarball: u, Integrity: sri("sha512", bad)} }, wantErr: ErrIntegrity},
		{name: "shasum mismatch", dist: func(u string) Dist { return Dist{Tarball: u, Integrity: sri("sha512", good), Shasum: shasum(bad)} }, wantErr: ErrIntegrity},
		{name: "sha1 only", dist: func(u string) Dist { return Dist{Tarball: u, Shasum: shasum(good)} }, wantErr: ErrWeakIntegrity},
		{name: "sha1 only allowed", dist: func(u string) Dist { return Dist{Tarball: u, Shasum: shasum(good)} }, allowSHA1: true},
		{name: "sha1 only allowed mismatch", dist: func(u string) Dist { return Dist{Tarball: u, Shasum: shasum(bad)} }, allowSHA1: true, wantErr: ErrIntegrity},
		{name: "sha256", dist: func(u string) Dist { return Dist{Tarball: u, Integrity: sri("sha256", good)} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, cache := range []string{t.TempDir(), ""} {
				reg := newFakeRegistry(t)
				reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
				reg.pkgs["p"].dists["1.0.0"] = tt.dist(reg.srv.URL + reg.tarballPath("p", "1.0.0"))
				c := newTestClient(t, reg, cache, func(c *Config) { c.AllowSHA1 = tt.allowSHA1 })
				r, err := c.Resolve(context.Background(), mustSpec(t, "npm:p"))
				if err != nil {
					t.Fatal(err)
				}
				tmp := t.TempDir()
				t.Setenv("TMPDIR", tmp)
				tb, err := c.FetchTarball(context.Background(), r)
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if err != nil {
					// Nothing is kept: not in the cache, not in the temp dir.
					for _, dir := range []string{cache, tmp} {
						if dir == "" {
							continue
						}
						filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
							if err == nil && !d.IsDir() && strings.HasSuffix(p, ".tgz") {
								t.Errorf("left behind: %s", p)
							}
							return nil
						})
					}
					return
				}
				if tb.Integrity != sri("sha512", good) || tb.Temporary != (cache == "") {
					t.Errorf("tarball %+v", tb)
				}
				if tb.Temporary {
					os.Remove(tb.Path)
				}
			}
		})
	}
}

func TestTokens(t *testing.T) {
	reg := newFakeRegistry(t)
	other := newFakeRegistry(t)
	reg.token = "s3cr3t-token"
	reg.publish("@private/ext", map[string]string{"latest": "1.0.0"}, "1.0.0")
	reg.publish("pub", map[string]string{"latest": "1.0.0"}, "1.0.0")
	other.publish("elsewhere", map[string]string{"latest": "1.0.0"}, "1.0.0")
	host := strings.TrimPrefix(reg.srv.URL, "http:")

	t.Run("without token", func(t *testing.T) {
		c := newTestClient(t, reg, "", nil)
		_, err := c.Resolve(context.Background(), mustSpec(t, "@private/ext"))
		if !errors.Is(err, ErrUnauthorized) {
			t.Fatalf("err = %v, want ErrUnauthorized", err)
		}
	})
	t.Run("with token", func(t *testing.T) {
		home := t.TempDir()
		npmrc := host + "/:_authToken=${NPM_TOKEN}\n@other:registry=" + other.url() + "\n"
		os.WriteFile(filepath.Join(home, ".npmrc"), []byte(npmrc), 0o600)
		env := map[string]string{"NPM_TOKEN": reg.token}
		first := len(reg.reqs())
		c := newTestClient(t, reg, t.TempDir(), func(c *Config) { c.HomeDir = home; c.Getenv = func(k string) string { return env[k] } })
		r, err := c.Resolve(context.Background(), mustSpec(t, "@private/ext@1"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.FetchTarball(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		// The other registry never sees the token, and errors never show it.
		r2, err := c.Resolve(context.Background(), Spec{Name: "elsewhere"})
		if err == nil {
			t.Fatalf("resolved elsewhere from the wrong registry: %+v", r2)
		}
		oc := newTestClient(t, other, "", func(c *Config) { c.HomeDir = home; c.Getenv = func(k string) string { return env[k] } })
		if _, err := oc.Resolve(context.Background(), Spec{Name: "elsewhere"}); err != nil {
			t.Fatal(err)
		}
		if _, err := oc.Resolve(context.Background(), Spec{Name: "missing"}); err == nil || strings.Contains(err.Error(), reg.token) {
			t.Fatalf("err = %v", err)
		}
		other.mu.Lock()
		for _, a := range other.auths {
			if a != "" {
				t.Errorf("other registry got Authorization %q", a)
			}
		}
		other.mu.Unlock()
		reg.mu.Lock()
		for i, a := range reg.auths[first:] {
			if a != "Bearer "+reg.token {
				t.Errorf("request %s without the token", reg.requests[first+i])
			}
		}
		reg.mu.Unlock()
	})
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name    string
		fail    int
		wantErr bool
		wantReq int
	}{
		{name: "two failures then success", fail: 2, wantReq: 3},
		{name: "three failures", fail: 3, wantErr: true, wantReq: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newFakeRegistry(t)
			reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
			reg.fail = tt.fail
			c := newTestClient(t, reg, "", nil)
			_, err := c.Resolve(context.Background(), mustSpec(t, "npm:p"))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			if err != nil && !strings.Contains(err.Error(), "503") {
				t.Errorf("error does not say the status: %v", err)
			}
			if n := len(reg.reqs()); n != tt.wantReq {
				t.Errorf("%d requests, want %d", n, tt.wantReq)
			}
		})
	}
	t.Run("404 is not retried", func(t *testing.T) {
		reg := newFakeRegistry(t)
		c := newTestClient(t, reg, "", nil)
		if _, err := c.Resolve(context.Background(), mustSpec(t, "npm:p")); !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
		if n := len(reg.reqs()); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
}

func TestTarballBodyRetries(t *testing.T) {
	for _, tt := range []struct {
		name    string
		cut     int
		wantErr bool
	}{
		{name: "cut twice, then whole", cut: 2},
		{name: "cut three times", cut: 3, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := newFakeRegistry(t)
			reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
			cache := t.TempDir()
			c := newTestClient(t, reg, cache, nil)
			r, err := c.Resolve(context.Background(), mustSpec(t, "npm:p"))
			if err != nil {
				t.Fatal(err)
			}
			reg.mu.Lock()
			reg.cutBody = tt.cut
			reg.mu.Unlock()
			tb, err := c.FetchTarball(context.Background(), r)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "after 3 tries") {
					t.Fatalf("err = %v", err)
				}
				var left []string
				filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() && strings.HasSuffix(p, ".tgz") {
						left = append(left, p)
					}
					return nil
				})
				if len(left) != 0 {
					t.Errorf("broken downloads left in the cache: %v", left)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(tb.Path); !bytes.Equal(data, reg.pkgs["p"].versions["1.0.0"]) {
				t.Error("the cached tarball is not the published one")
			}
		})
	}
}

func TestTimeoutsAndLimits(t *testing.T) {
	t.Run("header timeout", func(t *testing.T) {
		reg := newFakeRegistry(t)
		reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
		reg.slowHeaders = 2 * time.Second
		c := newTestClient(t, reg, "", func(c *Config) { c.Limits.HeaderTimeout = 50 * time.Millisecond })
		start := time.Now()
		_, err := c.Resolve(context.Background(), mustSpec(t, "npm:p"))
		if err == nil || !strings.Contains(err.Error(), "no response headers") {
			t.Fatalf("err = %v", err)
		}
		if len(reg.reqs()) != 3 || time.Since(start) > 1500*time.Millisecond {
			t.Errorf("%d requests in %s", len(reg.reqs()), time.Since(start))
		}
	})
	t.Run("body idle timeout", func(t *testing.T) {
		reg := newFakeRegistry(t)
		reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
		c := newTestClient(t, reg, t.TempDir(), func(c *Config) { c.Limits.IdleTimeout = 100 * time.Millisecond })
		r, err := c.Resolve(context.Background(), mustSpec(t, "npm:p"))
		if err != nil {
			t.Fatal(err)
		}
		reg.mu.Lock()
		reg.stallBody = true
		reg.mu.Unlock()
		_, err = c.FetchTarball(context.Background(), r)
		if err == nil || !strings.Contains(err.Error(), "stalled") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("size limit", func(t *testing.T) {
		reg := newFakeRegistry(t)
		reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
		c := newTestClient(t, reg, t.TempDir(), func(c *Config) { c.Limits.MaxDownload = 10 })
		r, err := c.Resolve(context.Background(), mustSpec(t, "npm:p"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.FetchTarball(context.Background(), r); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v", err)
		}
	})
}

type recProgress struct {
	label string
	total int64
	n     int64
	done  bool
}

func (p *recProgress) Start(label string, total int64) { p.label, p.total = label, total }
func (p *recProgress) Add(n int64)                     { p.n += n }
func (p *recProgress) Done(err error)                  { p.done = err == nil }

func TestProgress(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
	p := &recProgress{}
	c := newTestClient(t, reg, t.TempDir(), func(c *Config) { c.Progress = p })
	r, err := c.Resolve(context.Background(), mustSpec(t, "npm:p"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.FetchTarball(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	size := int64(len(reg.pkgs["p"].versions["1.0.0"]))
	if p.label != "p@1.0.0" || p.total != size || p.n != size || !p.done {
		t.Errorf("progress %+v, size %d", p, size)
	}
}
