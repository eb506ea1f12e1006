package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
)

// packageTgz is an npm-layout tarball of a minimal extension.
func packageTgz(t *testing.T, name, version string) []byte {
	t.Helper()
	pj, _ := json.Marshal(map[string]any{"name": name, "version": version,
		"spiritExtension": map[string]any{"displayName": "U", "supportedHosts": []string{"cli", "desktop"}}})
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "package/package.json", Mode: 0o644, Size: int64(len(pj)), Typeflag: tar.TypeReg})
	tw.Write(pj)
	tw.Close()
	gz.Close()
	return b.Bytes()
}

// outdated --check-urls downloads a URL install again and says whether the
// URL now serves other bytes; without the flag URL installs are not checked.
func TestOutdatedCheckURLs(t *testing.T) {
	var mu sync.Mutex
	body := packageTgz(t, "url-ext", "1.0.0")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Write(body)
	}))
	defer srv.Close()
	reg, _ := filepath.Abs(fixtureRegistry)
	env := map[string]string{"SPIRIT_AGENT_DATA_DIR": t.TempDir(), "SPIRIT_REGISTRY": reg}
	run := func(args ...string) (int, string, string) {
		ios, _, out, errOut := iostreams.Test()
		f := &Factory{IO: ios, Getenv: func(k string) string { return env[k] }, Now: time.Now, HTTPClient: srv.Client}
		code := Run(t.Context(), f, args)
		return code, out.String(), errOut.String()
	}
	if code, _, e := run("extension", "install", srv.URL+"/url-ext-1.0.0.tgz"); code != 0 {
		t.Fatalf("install: %s", e)
	}
	type row struct {
		ID, Kind         string
		Checked, Changed bool
	}
	rows := func(args ...string) []row {
		t.Helper()
		code, out, e := run(append([]string{"--json", "extension", "outdated"}, args...)...)
		if code != 0 {
			t.Fatalf("outdated %v: exit %d: %s", args, code, e)
		}
		var got struct{ Sources []row }
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		return got.Sources
	}
	if got := rows(); len(got) != 1 || got[0] != (row{"url-ext", "url", false, false}) {
		t.Errorf("without --check-urls: %+v", got)
	}
	if got := rows("--check-urls"); len(got) != 1 || got[0] != (row{"url-ext", "url", true, false}) {
		t.Errorf("same bytes: %+v", got)
	}
	mu.Lock()
	body = packageTgz(t, "url-ext", "1.1.0")
	mu.Unlock()
	if got := rows("--check-urls"); len(got) != 1 || got[0] != (row{"url-ext", "url", true, true}) {
		t.Errorf("changed bytes: %+v", got)
	}
	if _, out, _ := run("extension", "outdated", "--check-urls"); !bytes.Contains([]byte(out), []byte("changed")) {
		t.Errorf("human output does not say changed:\n%s", out)
	}
}
