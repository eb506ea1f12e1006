package install_test

import (
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/install/internal/corpus"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/npm"
)

// streamRegistry is an npm registry of corpus.ID over real HTTP: its
// packument names each version's tarball with the integrity in sums (the
// tarball's own digest unless a test changes it); cut makes it promise a
// whole tarball and drop the connection half way, every time.
type streamRegistry struct {
	srv      *httptest.Server
	mu       sync.Mutex
	tarballs map[string][]byte // version → bytes
	sums     map[string][]byte // version → the sha512 the packument states
	cut      atomic.Bool
	fetched  atomic.Int32 // tarball requests
}

func newStreamRegistry(t *testing.T) *streamRegistry {
	r := &streamRegistry{tarballs: map[string][]byte{}, sums: map[string][]byte{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

// publish adds version with n extra files; it returns the tarball.
func (r *streamRegistry) publish(version string, n int) []byte {
	data := corpus.Tgz(corpus.Package("package/", corpus.ID, version, n))
	sum := sha512.Sum512(data)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tarballs[version], r.sums[version] = data, sum[:]
	return data
}

func (r *streamRegistry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := strings.CutPrefix(req.URL.Path, "/"+corpus.ID+"/-/"+corpus.ID+"-"); ok {
		data, ok := r.tarballs[strings.TrimSuffix(v, ".tgz")]
		if !ok {
			http.NotFound(w, req)
			return
		}
		r.fetched.Add(1)
		if r.cut.Load() {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(data))
			buf.Write(data[:len(data)/2])
			buf.Flush()
			conn.Close()
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data)
		return
	}
	if req.URL.Path != "/"+corpus.ID {
		http.NotFound(w, req)
		return
	}
	versions := map[string]any{}
	latest := ""
	for v, data := range r.tarballs {
		sum := sha1.Sum(data)
		versions[v] = map[string]any{"name": corpus.ID, "version": v, "dist": map[string]string{
			"tarball":   r.srv.URL + "/" + corpus.ID + "/-/" + corpus.ID + "-" + v + ".tgz",
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(r.sums[v]),
			"shasum":    hex.EncodeToString(sum[:]),
		}}
		latest = max(latest, v)
	}
	json.NewEncoder(w).Encode(map[string]any{"name": corpus.ID, "dist-tags": map[string]string{"latest": latest}, "versions": versions})
}

// countingProgress counts the files the install reported unpacking.
type countingProgress struct{ files atomic.Int32 }

func (p *countingProgress) Waiting(string)          {}
func (p *countingProgress) Extracting(int64, int64) { p.files.Add(1) }

// streamInstall resolves npm:corpus-ext@version through a real npm.Client
// with cache and installs it.
func streamInstall(t *testing.T, in *install.Installer, reg *streamRegistry, cache, version string, replace, downgrade bool) (*install.Artifact, *install.Result, error) {
	t.Helper()
	r := &install.Resolver{NPM: func() (install.NPMClient, error) {
		return npm.NewClient(npm.Config{Registry: reg.srv.URL + "/", HomeDir: tempdir.New(t), WorkDir: tempdir.New(t), CacheDir: cache,
			Getenv: func(string) string { return "" },
			Limits: fetch.Limits{RetryDelay: time.Millisecond, HeaderTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}})
	}}
	art, err := r.Resolve(context.Background(), "npm:"+corpus.ID+"@"+version)
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(art.Close)
	res, err := in.Install(context.Background(), art.Request(replace, downgrade))
	return art, res, err
}

// cached lists the files of the npm tarball cache, partial copies included.
func cached(t *testing.T, cache string) []string {
	var out []string
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "tarballs") {
			out = append(out, filepath.Base(p))
		}
		return nil
	})
	return out
}

// installedVersion is the version of corpus.ID the records and the
// installed package.json state ("" when none).
func installedVersion(t *testing.T, in *install.Installer) string {
	t.Helper()
	found, err := install.Find(in.Paths, corpus.ID)
	if err != nil {
		return ""
	}
	if found.Record == nil || found.Record.Version != found.Manifest.Version {
		t.Errorf("record %+v for the installed %s", found.Record, found.Manifest.Version)
	}
	return found.Manifest.Version
}

// A cold npm install unpacks the tarball as it downloads, records the
// digest of the bytes it unpacked, and keeps them in the cache: the next
// install of that version makes no request for the tarball.
func TestStreamedInstall(t *testing.T) {
	reg := newStreamRegistry(t)
	data := reg.publish("1.0.0", 300)
	in, root := newInstaller(t)
	cache := filepath.Join(root, "cache")
	_, res, err := streamInstall(t, in, reg, cache, "1.0.0", false, false)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(data)
	if want := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); res.Record.Integrity != want {
		t.Errorf("recorded integrity %s, want %s", res.Record.Integrity, want)
	}
	if got := cached(t, cache); len(got) != 1 || strings.HasPrefix(got[0], ".") {
		t.Errorf("cache holds %v", got)
	}
	if _, _, err := streamInstall(t, in, reg, cache, "1.0.0", true, false); err != nil {
		t.Fatal(err)
	}
	if n := reg.fetched.Load(); n != 1 {
		t.Errorf("%d tarball requests, want 1", n)
	}
}

// A tarball whose bytes do not match the packument's integrity is
// unpacked as it arrives, but fails at its end: nothing is installed,
// recorded or cached, and the previous install stays.
func TestStreamedMismatchNeverInstalled(t *testing.T) {
	reg := newStreamRegistry(t)
	reg.publish("1.0.0", 2)
	in, root := newInstaller(t)
	cache := filepath.Join(root, "cache")
	if _, _, err := streamInstall(t, in, reg, cache, "1.0.0", false, false); err != nil {
		t.Fatal(err)
	}
	before := cached(t, cache)
	reg.publish("2.0.0", 300)
	other := sha512.Sum512([]byte("other bytes"))
	reg.mu.Lock()
	reg.sums["2.0.0"] = other[:]
	reg.mu.Unlock()
	p := &countingProgress{}
	in.Progress = p
	_, _, err := streamInstall(t, in, reg, cache, "2.0.0", true, false)
	var ie *npm.IntegrityError
	if !errors.As(err, &ie) {
		t.Fatalf("install: %v, want an *npm.IntegrityError", err)
	}
	if p.files.Load() < 100 {
		t.Errorf("only %d files were unpacked before the failure: the test does not show that extraction had started", p.files.Load())
	}
	if v := installedVersion(t, in); v != "1.0.0" {
		t.Errorf("installed version %q, want 1.0.0", v)
	}
	if got := cached(t, cache); strings.Join(got, ",") != strings.Join(before, ",") {
		t.Errorf("cache holds %v, had %v", got, before)
	}
	if left, _ := os.ReadDir(in.Paths.StagingDir()); len(left) != 0 {
		t.Errorf("staging holds %v", left)
	}
}

// A download cut off half way at every try fails the install and leaves
// the previous one as it was, with nothing cached.
func TestStreamedCutLeavesPreviousInstall(t *testing.T) {
	reg := newStreamRegistry(t)
	reg.publish("1.0.0", 2)
	in, root := newInstaller(t)
	cache := filepath.Join(root, "cache")
	if _, _, err := streamInstall(t, in, reg, cache, "1.0.0", false, false); err != nil {
		t.Fatal(err)
	}
	want := expectedFiles(t, in.Paths.PackageDir(corpus.ID))["1.0.0"]
	before := cached(t, cache)
	reg.publish("2.0.0", 300)
	reg.cut.Store(true)
	_, _, err := streamInstall(t, in, reg, cache, "2.0.0", true, false)
	if err == nil || !strings.Contains(err.Error(), corpus.ID+"@2.0.0") {
		t.Fatalf("install: %v, want the broken download of %s@2.0.0", err, corpus.ID)
	}
	if v := installedVersion(t, in); v != "1.0.0" {
		t.Errorf("installed version %q, want 1.0.0", v)
	}
	checkIntact(t, in.Paths.PackageDir(corpus.ID), want)
	if got := cached(t, cache); strings.Join(got, ",") != strings.Join(before, ",") {
		t.Errorf("cache holds %v, had %v", got, before)
	}
}

// An install that stops to ask (a downgrade) and is made again with the
// same request installs the copy the first one downloaded and verified.
func TestStreamedSecondInstallUsesCopy(t *testing.T) {
	reg := newStreamRegistry(t)
	reg.publish("1.0.0", 2)
	reg.publish("2.0.0", 2)
	in, root := newInstaller(t)
	cache := filepath.Join(root, "cache")
	if _, _, err := streamInstall(t, in, reg, cache, "2.0.0", false, false); err != nil {
		t.Fatal(err)
	}
	art, _, err := streamInstall(t, in, reg, cache, "1.0.0", true, false)
	if !errors.Is(err, install.ErrDowngrade) {
		t.Fatalf("install: %v, want a downgrade refusal", err)
	}
	if _, err := in.Install(context.Background(), art.Request(true, true)); err != nil {
		t.Fatal(err)
	}
	if v := installedVersion(t, in); v != "1.0.0" {
		t.Errorf("installed version %q, want 1.0.0", v)
	}
	if n := reg.fetched.Load(); n != 2 {
		t.Errorf("%d tarball requests, want 2", n)
	}
}
