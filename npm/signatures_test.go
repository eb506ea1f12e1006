package npm

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spiritagents/spirit/fetch"
)

// The npm registry's two signing keys, as its keys endpoint publishes them
// (testdata/signed/keys.json): the first signed until 2025-01-29.
const (
	oldKeyID = "SHA256:jl3bwswu80PjjokCgh0o2w5c2U4LhQAE57gj9cz1kzA"
	newKeyID = "SHA256:DhQ8wR5APBvFHLF/+Tc+AYvPOdTpcIDqOhxsBHRwC7U"
)

// recordedRegistry serves the recorded packuments, tarballs, keys and
// attestations of testdata/DIR with the npm registry's protocol, its
// own URL in place of https://registry.npmjs.org/. The hooks change what
// it serves, for the hostile cases.
type recordedRegistry struct {
	t   *testing.T
	dir string
	srv *httptest.Server

	mu   sync.Mutex
	keys []byte // nil → 404
	// keysStatus, when set, is the status the keys endpoint answers.
	keysStatus int
	// edit changes a packument (decoded) before it is served.
	edit func(doc map[string]any)
	// tarball replaces the bytes of a tarball, when set.
	tarball func(name string, data []byte) []byte
	// abbreviatedWithoutTime serves the abbreviated form without "time",
	// as the public registry does.
	abbreviatedWithoutTime bool
	// abbreviatedWithoutSignatures leaves dist.signatures out of the
	// abbreviated form.
	abbreviatedWithoutSignatures bool
	reqs                         []string
}

func newRecordedRegistry(t *testing.T, dir string) *recordedRegistry {
	t.Helper()
	r := &recordedRegistry{t: t, dir: filepath.Join("testdata", dir)}
	if keys, err := os.ReadFile(filepath.Join(r.dir, "keys.json")); err == nil {
		r.keys = keys
	}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recordedRegistry) url() string { return r.srv.URL + "/" }

// docFile maps a package name to its recorded packument.
func docFile(name string) string {
	return strings.ReplaceAll(strings.TrimPrefix(name, "@"), "/", "-") + ".json"
}

func (r *recordedRegistry) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs)
}

func (r *recordedRegistry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	path := req.URL.EscapedPath()
	r.reqs = append(r.reqs, path+" "+req.Header.Get("Accept"))
	switch {
	case path == "/-/npm/v1/keys":
		if r.keysStatus != 0 {
			http.Error(w, "keys", r.keysStatus)
			return
		}
		if r.keys == nil {
			http.NotFound(w, req)
			return
		}
		w.Write(r.keys)
	case strings.HasPrefix(path, "/-/npm/v1/attestations/"):
		spec, _ := url2name(strings.TrimPrefix(path, "/-/npm/v1/attestations/"))
		data, err := os.ReadFile(filepath.Join(r.dir, "attestations-"+spec+".json"))
		if err != nil {
			http.NotFound(w, req)
			return
		}
		w.Write(data)
	case strings.Contains(path, "/-/"):
		i := strings.Index(path, "/-/")
		name, _ := url2name(path[1:i])
		data, err := os.ReadFile(filepath.Join(r.dir, path[i+3:]))
		if err != nil {
			http.NotFound(w, req)
			return
		}
		if r.tarball != nil {
			data = r.tarball(name, data)
		}
		w.Write(data)
	default:
		name, _ := url2name(strings.TrimPrefix(path, "/"))
		raw, err := os.ReadFile(filepath.Join(r.dir, docFile(name)))
		if err != nil {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		raw = []byte(strings.ReplaceAll(string(raw), "https://registry.npmjs.org/", r.url()))
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			r.t.Error(err)
			return
		}
		if r.edit != nil {
			r.edit(doc)
		}
		if strings.HasPrefix(req.Header.Get("Accept"), "application/vnd.npm.install-v1+json") {
			if r.abbreviatedWithoutTime {
				delete(doc, "time")
			}
			if r.abbreviatedWithoutSignatures {
				delete(distOf(doc), "signatures")
			}
		}
		data, _ := json.Marshal(doc)
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	}
}

// url2name undoes the registry's escaping of a scoped name.
func url2name(s string) (string, error) {
	return strings.Replace(strings.Replace(s, "%2f", "/", 1), "%40", "@", 1), nil
}

func recordedClient(t *testing.T, reg string, cache string) *Client {
	t.Helper()
	c, err := NewClient(Config{Registry: reg, CacheDir: cache, HomeDir: t.TempDir(), WorkDir: t.TempDir(),
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// dist returns the dist object of the one version of a recorded packument.
func distOf(doc map[string]any) map[string]any {
	for _, v := range doc["versions"].(map[string]any) {
		return v.(map[string]any)["dist"].(map[string]any)
	}
	return nil
}

// TestRecordedSignaturesVerify: real packages of the npm registry, with
// the signatures and keys it published, verify as npm verifies them:
// three signed by the key that expired on 2025-01-29 before it expired,
// one scoped package signed by the current key.
func TestRecordedSignaturesVerify(t *testing.T) {
	reg := newRecordedRegistry(t, "signed")
	c := recordedClient(t, reg.url(), t.TempDir())
	for _, tc := range []struct {
		spec, key string
		tarball   bool
	}{
		{"npm:node-fetch@1.7.1", oldKeyID, true},
		{"npm:tuf-js@1.0.0", oldKeyID, true},
		{"npm:sigstore@1.0.0", oldKeyID, false},
		{"npm:@x402/stellar@2.12.0", newKeyID, false},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			r, err := c.Resolve(context.Background(), mustSpec(t, tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			if r.Signature.Status != SignatureVerified || !slices.Equal(r.Signature.KeyIDs, []string{tc.key}) {
				t.Errorf("signature %+v, want verified by %s", r.Signature, tc.key)
			}
			if !tc.tarball {
				return
			}
			tb, err := c.FetchTarball(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if tb.Integrity != r.Integrity {
				t.Errorf("tarball %s, signed integrity %s", tb.Integrity, r.Integrity)
			}
		})
	}
	if got := reg.requests(); len(slices.DeleteFunc(got, func(s string) bool { return !strings.HasPrefix(s, "/-/npm/v1/keys") })) != 1 {
		t.Errorf("the keys were fetched %d times, want once (cached)", len(got))
	}
}

// sign signs what npm signs with key.
func sign(t testing.TB, key *ecdsa.PrivateKey, name, version, integrity string) string {
	h := sha256.Sum256([]byte(name + "@" + version + ":" + integrity))
	sig, err := ecdsa.SignASN1(rand.Reader, key, h[:])
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(sig)
}

// TestHostileSignatures: every way a registry or a mirror can serve what
// the registry did not sign is refused before a byte of the tarball is
// fetched, with an error naming the package, the key and the registry.
func TestHostileSignatures(t *testing.T) {
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	realKeys, err := os.ReadFile("testdata/signed/keys.json")
	if err != nil {
		t.Fatal(err)
	}
	tampered := []byte("not the tarball that was published")
	sum := sha512.Sum512(tampered)
	tamperedSRI := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	past := "2010-01-01T00:00:00.000Z"
	for _, tc := range []struct {
		name   string
		setup  func(r *recordedRegistry)
		reason string
		keyID  string
	}{
		{"changed integrity (tarball swapped, integrity to match)", func(r *recordedRegistry) {
			r.edit = func(doc map[string]any) { distOf(doc)["integrity"] = tamperedSRI }
			r.tarball = func(string, []byte) []byte { return tampered }
		}, ReasonInvalid, oldKeyID},
		{"signature by another key under the registry's key id", func(r *recordedRegistry) {
			r.edit = func(doc map[string]any) {
				d := distOf(doc)
				d["signatures"] = []any{map[string]any{"keyid": oldKeyID, "sig": sign(t, other, "node-fetch", "1.7.1", d["integrity"].(string))}}
			}
		}, ReasonInvalid, oldKeyID},
		{"signature by a key the registry does not publish", func(r *recordedRegistry) {
			r.edit = func(doc map[string]any) {
				d := distOf(doc)
				d["signatures"] = []any{map[string]any{"keyid": "SHA256:attacker", "sig": sign(t, other, "node-fetch", "1.7.1", d["integrity"].(string))}}
			}
		}, ReasonUnknownKey, "SHA256:attacker"},
		{"a signature by another key beside the real one", func(r *recordedRegistry) {
			r.edit = func(doc map[string]any) {
				d := distOf(doc)
				d["signatures"] = append(d["signatures"].([]any), map[string]any{"keyid": newKeyID, "sig": sign(t, other, "node-fetch", "1.7.1", d["integrity"].(string))})
			}
		}, ReasonInvalid, newKeyID},
		{"published after its key expired", func(r *recordedRegistry) {
			r.edit = func(doc map[string]any) { doc["time"] = map[string]any{"1.7.1": "2025-06-01T00:00:00.000Z"} }
		}, ReasonExpiredKey, oldKeyID},
		{"the key expired before the version (keys document)", func(r *recordedRegistry) {
			r.keys = []byte(strings.Replace(string(realKeys), `"2025-01-29T00:00:00.000Z"`, `"`+past+`"`, 1))
		}, ReasonExpiredKey, oldKeyID},
		{"no time: npm's 2015 cut-off, after the key expired", func(r *recordedRegistry) {
			r.keys = []byte(strings.Replace(string(realKeys), `"2025-01-29T00:00:00.000Z"`, `"2014-01-01T00:00:00.000Z"`, 1))
			r.edit = func(doc map[string]any) { delete(doc, "time") }
		}, ReasonExpiredKey, oldKeyID},
		{"missing signature while the registry publishes keys", func(r *recordedRegistry) {
			r.edit = func(doc map[string]any) { delete(distOf(doc), "signatures") }
		}, ReasonMissing, ""},
		{"empty signature list", func(r *recordedRegistry) {
			r.edit = func(doc map[string]any) { distOf(doc)["signatures"] = []any{} }
		}, ReasonMissing, ""},
		{"signature not base64", func(r *recordedRegistry) {
			r.edit = func(doc map[string]any) {
				distOf(doc)["signatures"] = []any{map[string]any{"keyid": oldKeyID, "sig": "bogus!"}}
			}
		}, ReasonInvalid, oldKeyID},
		{"the real signature of another package", func(r *recordedRegistry) {
			r.edit = func(doc map[string]any) {
				distOf(doc)["signatures"] = []any{map[string]any{"keyid": oldKeyID,
					"sig": "MEYCIQDgGQeY2QLkLuoO9YxOqFZ+a6zYuaZpXhc77kUfdCUXDQIhAJp/vV+9Xg1bfM5YlTvKIH9agUEOu5T76+tQaHY2vZyO"}} // tuf-js@1.0.0's
			}
		}, ReasonInvalid, oldKeyID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := newRecordedRegistry(t, "signed")
			tc.setup(reg)
			c := recordedClient(t, reg.url(), t.TempDir())
			_, err := c.Resolve(context.Background(), mustSpec(t, "npm:node-fetch@1.7.1"))
			var se *SignatureError
			if !errors.As(err, &se) || !errors.Is(err, ErrSignature) {
				t.Fatalf("err = %v, want a *SignatureError", err)
			}
			if se.Reason != tc.reason || se.KeyID != tc.keyID || se.Name != "node-fetch" || se.Version != "1.7.1" || se.Registry != reg.url() {
				t.Errorf("%+v, want reason %q, key %q", se, tc.reason, tc.keyID)
			}
			for _, want := range []string{"node-fetch@1.7.1", reg.url(), tc.keyID, "refused"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not say %q", err, want)
				}
			}
			if se.Hint() == "" {
				t.Error("no hint")
			}
			for _, q := range reg.requests() {
				if strings.Contains(q, ".tgz") {
					t.Errorf("the tarball was fetched: %s", q)
				}
			}
		})
	}
}

// TestRegistryWithoutKeys: a registry whose keys endpoint answers 404
// (Verdaccio, private registries) works as before, and says so.
func TestRegistryWithoutKeys(t *testing.T) {
	reg := newRecordedRegistry(t, "signed")
	reg.keys = nil
	reg.edit = func(doc map[string]any) { delete(distOf(doc), "signatures") }
	c := recordedClient(t, reg.url(), t.TempDir())
	r, err := c.Resolve(context.Background(), mustSpec(t, "npm:node-fetch@1.7.1"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Signature.Status != SignatureNoKeys || len(r.Signature.KeyIDs) != 0 {
		t.Errorf("signature %+v, want no-keys", r.Signature)
	}
	if _, err := c.FetchTarball(context.Background(), r); err != nil {
		t.Fatal(err)
	}
}

// TestBadKeysDocument: a keys endpoint that answers garbage is an error
// (fail closed), naming the registry, not "no keys".
func TestBadKeysDocument(t *testing.T) {
	for _, body := range []string{`not json`, `{}`, `{"keys":[{"keyid":"k","keytype":"ecdsa-sha2-nistp256","scheme":"ecdsa-sha2-nistp256","key":"%%%"}]}`,
		`{"keys":[{"keyid":"k","keytype":"ecdsa-sha2-nistp256","scheme":"ecdsa-sha2-nistp256","key":"AAAA"}]}`} {
		reg := newRecordedRegistry(t, "signed")
		reg.keys = []byte(body)
		c := recordedClient(t, reg.url(), t.TempDir())
		_, err := c.Resolve(context.Background(), mustSpec(t, "npm:node-fetch@1.7.1"))
		var ke *KeysError
		if !errors.As(err, &ke) || !errors.Is(err, ErrBadKeys) || !strings.Contains(err.Error(), reg.url()) {
			t.Errorf("%s: err = %v, want a *KeysError naming the registry", body, err)
		}
	}
}

// TestKeysGone: a registry seen with keys that stops publishing them (or
// whoever answers for it) does not turn verification off.
func TestKeysGone(t *testing.T) {
	reg := newRecordedRegistry(t, "signed")
	cache := t.TempDir()
	if _, err := recordedClient(t, reg.url(), cache).Resolve(context.Background(), mustSpec(t, "npm:node-fetch@1.7.1")); err != nil {
		t.Fatal(err)
	}
	// A day later, the keys endpoint answers 404 and the signatures are gone.
	c := recordedClient(t, reg.url(), cache)
	rec, ok := c.cachedKeys(reg.url())
	if !ok {
		t.Fatal("keys not cached")
	}
	rec.Fetched = rec.Fetched.Add(-2 * KeysLifetime)
	data, _ := json.Marshal(rec)
	if err := os.WriteFile(c.keysPath(reg.url()), data, 0o600); err != nil {
		t.Fatal(err)
	}
	reg.mu.Lock()
	reg.keys = nil
	reg.edit = func(doc map[string]any) { delete(distOf(doc), "signatures") }
	reg.mu.Unlock()
	_, err := c.Resolve(context.Background(), mustSpec(t, "npm:node-fetch@1.7.1"))
	var se *SignatureError
	if !errors.As(err, &se) || se.Reason != ReasonKeysGone {
		t.Fatalf("err = %v, want keys gone", err)
	}
	// Deleting the cached record is the way to accept it.
	if err := os.Remove(c.keysPath(reg.url())); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Resolve(context.Background(), mustSpec(t, "npm:node-fetch@1.7.1")); err != nil {
		t.Fatal(err)
	}
}

// TestAbbreviatedWithoutTime: the public registry's abbreviated packument
// has no publish times; a signature by a key that expires needs one, so
// the full document is fetched; a key that never expires needs none.
func TestAbbreviatedWithoutTime(t *testing.T) {
	reg := newRecordedRegistry(t, "signed")
	reg.abbreviatedWithoutTime = true
	c := recordedClient(t, reg.url(), t.TempDir())
	for _, tc := range []struct {
		spec string
		full bool
	}{{"npm:node-fetch@1.7.1", true}, {"npm:@x402/stellar@2.12.0", false}} {
		before := len(reg.requests())
		r, err := c.Resolve(context.Background(), mustSpec(t, tc.spec))
		if err != nil {
			t.Fatal(err)
		}
		if r.Signature.Status != SignatureVerified {
			t.Errorf("%s: %+v", tc.spec, r.Signature)
		}
		full := false
		for _, q := range reg.requests()[before:] {
			full = full || strings.HasSuffix(q, " "+acceptFull)
		}
		if full != tc.full {
			t.Errorf("%s: full document fetched = %v, want %v (%q)", tc.spec, full, tc.full, reg.requests()[before:])
		}
	}
}

// TestAbbreviatedWithoutSignatures: signatures missing from the
// abbreviated document are looked for in the full one before the version
// is refused.
func TestAbbreviatedWithoutSignatures(t *testing.T) {
	reg := newRecordedRegistry(t, "signed")
	reg.abbreviatedWithoutSignatures = true
	c := recordedClient(t, reg.url(), t.TempDir())
	r, err := c.Resolve(context.Background(), mustSpec(t, "npm:@x402/stellar@2.12.0"))
	if err != nil || r.Signature.Status != SignatureVerified {
		t.Fatalf("%v %+v", err, r)
	}
	full := false
	for _, q := range reg.requests() {
		full = full || strings.HasSuffix(q, " "+acceptFull)
	}
	if !full {
		t.Errorf("the full document was not asked for: %q", reg.requests())
	}
}

// TestCachedExactVerifiesToo: an exact version resolved from the cache
// (no request) is checked against the cached keys, and a cached
// packument whose signature does not verify is not used.
func TestCachedExactVerifiesToo(t *testing.T) {
	reg := newRecordedRegistry(t, "signed")
	cache := t.TempDir()
	c := recordedClient(t, reg.url(), cache)
	r, err := c.Resolve(context.Background(), mustSpec(t, "npm:node-fetch@1.7.1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.FetchTarball(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	before := len(reg.requests())
	r2, err := recordedClient(t, reg.url(), cache).Resolve(context.Background(), mustSpec(t, "npm:node-fetch@1.7.1"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(reg.requests()) - before; n != 0 || r2.Signature.Status != SignatureVerified {
		t.Errorf("%d requests, signature %+v; want 0 and verified", n, r2.Signature)
	}
	// Tamper with the cached packument's signature: the cache is not
	// trusted, the registry is asked, and its (true) answer verifies.
	files, _ := filepath.Glob(filepath.Join(cache, "npm", "packuments", "*.json"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		os.WriteFile(f, []byte(strings.Replace(string(data), "MEYCIQDEn2Xr", "MEYCIQDEn2Xs", 1)), 0o600)
	}
	before = len(reg.requests())
	if _, err := recordedClient(t, reg.url(), cache).Resolve(context.Background(), mustSpec(t, "npm:node-fetch@1.7.1")); err != nil {
		t.Fatal(err)
	}
	if n := len(reg.requests()) - before; n == 0 {
		t.Error("a cached packument with a broken signature was used")
	}
}

// TestScopedRegistryKeys: keys are per registry; a scope's registry from
// .npmrc is asked for its own keys, and a package of that scope is
// checked against them, not the default registry's.
func TestScopedRegistryKeys(t *testing.T) {
	signed := newRecordedRegistry(t, "signed")   // publishes keys
	unsigned := newRecordedRegistry(t, "signed") // a private registry: no keys, no signatures
	unsigned.keys = nil
	unsigned.edit = func(doc map[string]any) { delete(distOf(doc), "signatures") }
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte("@x402:registry="+unsigned.url()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(Config{Registry: signed.url(), CacheDir: t.TempDir(), HomeDir: home, WorkDir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Resolve(context.Background(), mustSpec(t, "npm:@x402/stellar@2.12.0"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Registry != unsigned.url() || r.Signature.Status != SignatureNoKeys {
		t.Errorf("scoped: %s %+v, want the scope's registry, no keys", r.Registry, r.Signature)
	}
	r, err = c.Resolve(context.Background(), mustSpec(t, "npm:node-fetch@1.7.1"))
	if err != nil || r.Signature.Status != SignatureVerified {
		t.Errorf("default registry: %v %+v", err, r)
	}
	// The other way round: the scope's registry has keys, the package is unsigned there.
	signed.edit = func(doc map[string]any) { delete(distOf(doc), "signatures") }
	home2 := t.TempDir()
	os.WriteFile(filepath.Join(home2, ".npmrc"), []byte("@x402:registry="+signed.url()+"\n"), 0o600)
	c2, err := NewClient(Config{Registry: unsigned.url(), CacheDir: t.TempDir(), HomeDir: home2, WorkDir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c2.Resolve(context.Background(), mustSpec(t, "npm:@x402/stellar@2.12.0"))
	var se *SignatureError
	if !errors.As(err, &se) || se.Reason != ReasonMissing || se.Registry != signed.url() {
		t.Errorf("err = %v, want missing from the scope's registry", err)
	}
}

// TestVerifySignaturesTable covers the rules on their own.
func TestVerifySignaturesTable(t *testing.T) {
	keys, err := ParseRegistryKeys(mustRead(t, "testdata/signed/keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	const integrity = "sha512-j8XsFGCLw79vWXkZtMSmmLaOk9z5SQ9bV/tkbZVCqvgwzrjAGq66igobLofHtF63NvMTp2WjytpsNTGKa+XRIQ=="
	sig := []Signature{{KeyID: oldKeyID, Sig: "MEYCIQDEn2XrrMXlRm+wh2tOIUyb0Km3ZujfT+6Mf61OXGK9zQIhANnPauUwx3N9RcQYQakDpOmLvYzNkySh7fmzmvyhk21j"}}
	expiry := time.Date(2025, 1, 29, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name                string
		pkg, ver, integrity string
		published           time.Time
		sigs                []Signature
		keys                []RegistryKey
		reason              string
	}{
		{"real", "node-fetch", "1.7.1", integrity, expiry.Add(-time.Second), sig, keys, ""},
		{"published at the expiry instant", "node-fetch", "1.7.1", integrity, expiry, sig, keys, ReasonExpiredKey},
		{"no time: 2015 cut-off", "node-fetch", "1.7.1", integrity, time.Time{}, sig, keys, ""},
		{"other version", "node-fetch", "1.7.2", integrity, time.Time{}, sig, keys, ReasonInvalid},
		{"other name", "node-fetcb", "1.7.1", integrity, time.Time{}, sig, keys, ReasonInvalid},
		{"integrity with a trailing space is another message", "node-fetch", "1.7.1", integrity + " ", time.Time{}, sig, keys, ReasonInvalid},
		{"no keys: nothing to check", "node-fetch", "1.7.1", integrity, time.Time{}, nil, nil, ""},
		{"keys, no signatures", "node-fetch", "1.7.1", integrity, time.Time{}, nil, keys, ReasonMissing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := VerifySignatures("https://registry.npmjs.org/", tc.pkg, tc.ver, tc.integrity, tc.published, tc.sigs, tc.keys)
			var se *SignatureError
			switch {
			case tc.reason == "" && err != nil:
				t.Errorf("err = %v", err)
			case tc.reason != "" && (!errors.As(err, &se) || se.Reason != tc.reason):
				t.Errorf("err = %v, want %s", err, tc.reason)
			}
		})
	}
}

func mustRead(t testing.TB, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// FuzzParseRegistryKeys: a keys document from the network never panics
// the parser, and every key it accepts can verify (a P-256 key).
func FuzzParseRegistryKeys(f *testing.F) {
	f.Add(mustRead(f, "testdata/signed/keys.json"))
	f.Add([]byte(`{"keys":[]}`))
	f.Add([]byte(`{"keys":[{"expires":"x","keyid":"a","keytype":"ecdsa-sha2-nistp256","scheme":"ecdsa-sha2-nistp256","key":"AAAA"}]}`))
	f.Add([]byte(`{"keys":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, err := ParseRegistryKeys(data)
		if err != nil {
			if !errors.Is(err, ErrBadKeys) {
				t.Fatalf("error %v does not match ErrBadKeys", err)
			}
			return
		}
		for _, k := range keys {
			usable := k.KeyType == "ecdsa-sha2-nistp256" && k.Scheme == "ecdsa-sha2-nistp256"
			if k.KeyID == "" || usable != (k.pub != nil) || (k.pub != nil && k.pub.Curve != elliptic.P256()) {
				t.Fatalf("accepted key %+v", k)
			}
		}
		_, _ = VerifySignatures("r", "n", "1.0.0", "sha512-x", time.Time{}, []Signature{{KeyID: "a", Sig: "MEQCIBlp"}}, keys)
	})
}

// FuzzVerifySignatures: signatures from a packument never panic the
// verifier, and nothing but the real signature verifies the real message.
func FuzzVerifySignatures(f *testing.F) {
	keys, err := ParseRegistryKeys(mustRead(f, "testdata/signed/keys.json"))
	if err != nil {
		f.Fatal(err)
	}
	const integrity = "sha512-j8XsFGCLw79vWXkZtMSmmLaOk9z5SQ9bV/tkbZVCqvgwzrjAGq66igobLofHtF63NvMTp2WjytpsNTGKa+XRIQ=="
	const real = "MEYCIQDEn2XrrMXlRm+wh2tOIUyb0Km3ZujfT+6Mf61OXGK9zQIhANnPauUwx3N9RcQYQakDpOmLvYzNkySh7fmzmvyhk21j"
	f.Add(oldKeyID, real)
	f.Add(newKeyID, "MEQCIEIHUSPQz2bTfzirFEiEWPtBZsgy13v72S/99EAUO8abAiBhOKC+EFxCrbLJkOQGspAYzIDqGnj8yerBLKzFgBHNtA==")
	f.Add(oldKeyID, "")
	f.Add("", "AAAA")
	f.Fuzz(func(t *testing.T, keyID, sig string) {
		_, err := VerifySignatures("r", "node-fetch", "1.7.1", integrity, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), []Signature{{KeyID: keyID, Sig: sig}}, keys)
		if err == nil && (keyID != oldKeyID || !sameSig(sig, real)) {
			t.Fatalf("signature %q by %q verified", sig, keyID)
		}
	})
}

// sameSig reports whether signature a is b or b's other valid form:
// ECDSA's (r, n−s) verifies as (r, s) does, so r must be the same.
func sameSig(a, b string) bool {
	r := func(s string) *big.Int {
		der, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil
		}
		var v struct{ R, S *big.Int }
		if _, err := asn1.Unmarshal(der, &v); err != nil {
			return nil
		}
		return v.R
	}
	ra, rb := r(a), r(b)
	return ra != nil && rb != nil && ra.Cmp(rb) == 0
}

// TestKeysEndpointDown: a keys endpoint that fails (5xx) is an error, not
// "no keys"; with keys cached earlier (even stale) the install goes on
// with them.
func TestKeysEndpointDown(t *testing.T) {
	reg := newRecordedRegistry(t, "signed")
	reg.keysStatus = http.StatusBadGateway
	cache := t.TempDir()
	c, err := NewClient(Config{Registry: reg.url(), CacheDir: cache, HomeDir: t.TempDir(), WorkDir: t.TempDir(),
		Getenv: func(string) string { return "" }, Limits: fetch.Limits{RetryDelay: 1}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve(context.Background(), mustSpec(t, "npm:node-fetch@1.7.1"))
	if err == nil || !strings.Contains(err.Error(), "signing keys of "+reg.url()) {
		t.Fatalf("err = %v, want the keys endpoint's failure", err)
	}
	reg.mu.Lock()
	reg.keysStatus = 0
	reg.mu.Unlock()
	if _, err := c.Resolve(context.Background(), mustSpec(t, "npm:node-fetch@1.7.1")); err != nil {
		t.Fatal(err)
	}
	rec, _ := c.cachedKeys(reg.url())
	rec.Fetched = rec.Fetched.Add(-2 * KeysLifetime)
	data, _ := json.Marshal(rec)
	os.WriteFile(c.keysPath(reg.url()), data, 0o600)
	reg.mu.Lock()
	reg.keysStatus = http.StatusBadGateway
	reg.mu.Unlock()
	r, err := c.Resolve(context.Background(), mustSpec(t, "npm:node-fetch@1.7.1"))
	if err != nil || r.Signature.Status != SignatureVerified {
		t.Fatalf("with stale keys: %v %+v", err, r)
	}
}

// TestUnsupportedKeyType: a key of another type beside npm's does not
// break the others; a signature by it is refused as such.
func TestUnsupportedKeyType(t *testing.T) {
	real := mustRead(t, "testdata/signed/keys.json")
	doc := strings.Replace(string(real), `{"keys":[`, `{"keys":[{"expires":null,"keyid":"SHA256:ed","keytype":"ssh-ed25519","scheme":"ed25519","key":"AAAA"},`, 1)
	keys, err := ParseRegistryKeys([]byte(doc))
	if err != nil || len(keys) != 3 {
		t.Fatalf("%v %d", err, len(keys))
	}
	const integrity = "sha512-j8XsFGCLw79vWXkZtMSmmLaOk9z5SQ9bV/tkbZVCqvgwzrjAGq66igobLofHtF63NvMTp2WjytpsNTGKa+XRIQ=="
	real171 := Signature{KeyID: oldKeyID, Sig: "MEYCIQDEn2XrrMXlRm+wh2tOIUyb0Km3ZujfT+6Mf61OXGK9zQIhANnPauUwx3N9RcQYQakDpOmLvYzNkySh7fmzmvyhk21j"}
	if _, err := VerifySignatures("r", "node-fetch", "1.7.1", integrity, time.Time{}, []Signature{real171}, keys); err != nil {
		t.Fatal(err)
	}
	_, err = VerifySignatures("r", "node-fetch", "1.7.1", integrity, time.Time{}, []Signature{real171, {KeyID: "SHA256:ed", Sig: "AAAA"}}, keys)
	var se *SignatureError
	if !errors.As(err, &se) || se.Reason != ReasonUnsupportedKey || !strings.Contains(err.Error(), "SHA256:ed") {
		t.Errorf("err = %v", err)
	}
}
