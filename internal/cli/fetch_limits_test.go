package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/fetch/fetchtest"
	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/paths"
)

// SPIRIT_DOWNLOAD_TIMEOUT sets the overall deadline of a download: an
// https URL install from a server that trickles a byte every 20 ms ends
// when it passes. A value that is not a duration is a usage error.
func TestDownloadTimeoutEnv(t *testing.T) {
	srv := httptest.NewTLSServer(fetchtest.Trickle(20*time.Millisecond, 500))
	defer srv.Close()
	run := func(timeout string) error {
		ios, _, _, _ := iostreams.Test()
		env := map[string]string{fetch.TimeoutEnv: timeout}
		f := &Factory{IO: ios, Getenv: func(k string) string { return env[k] }, Now: time.Now,
			HTTPClient: srv.Client, Global: GlobalOptions{DataDir: t.TempDir()}}
		return runInstall(context.Background(), &InstallOptions{f: f, Source: srv.URL + "/x.tgz", LockTimeout: 5 * time.Second})
	}
	start := time.Now()
	if err := run("300ms"); !errors.Is(err, fetch.ErrDeadline) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %s", err, time.Since(start))
	}
	var ue *usageError
	if err := run("soon"); !errors.As(err, &ue) || !strings.Contains(err.Error(), fetch.TimeoutEnv) {
		t.Fatalf("bad value: err = %v", err)
	}
}

// extTgz is an npm-style tarball of a minimal extension.
func extTgz(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	pj := `{"name":"url-ext","version":"1.0.0","spiritExtension":{"displayName":"URL","supportedHosts":["cli"]}}`
	if err := tw.WriteHeader(&tar.Header{Name: "package/package.json", Mode: 0o644, Size: int64(len(pj)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte(pj))
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// `install https://alice:S3cret@host/x.tgz` sends the password to that
// host for the download, and never stores or prints it: not in
// installed.json, not in `list --json` or `info --json`, human or JSON.
func TestURLCredentialsNotStored(t *testing.T) {
	body := extTgz(t)
	var mu sync.Mutex
	var auths []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		if u, p, ok := r.BasicAuth(); !ok || u != "alice" || p != "S3cret" {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		w.Write(body)
	}))
	defer srv.Close()
	data := t.TempDir()
	src := strings.Replace(srv.URL, "https://", "https://alice:S3cret@", 1) + "/dl/url-ext-1.0.0.tgz"
	newF := func(json bool) (*Factory, *bytes.Buffer) {
		ios, _, out, _ := iostreams.Test()
		return &Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now,
			HTTPClient: srv.Client, Global: GlobalOptions{DataDir: data, JSON: json}}, out
	}
	f, out := newF(true)
	if err := runInstall(context.Background(), &InstallOptions{f: f, Source: src, LockTimeout: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(auths) != 1 || auths[0] == "" {
		t.Errorf("the server got Authorization %q", auths)
	}
	mu.Unlock()
	shown := []string{out.String()}
	records, err := os.ReadFile(paths.New(data, paths.HostCLI).InstalledFile())
	if err != nil {
		t.Fatal(err)
	}
	shown = append(shown, string(records))
	for _, json := range []bool{true, false} {
		f, out := newF(json)
		if err := runList(t.Context(), &ListOptions{f: f}); err != nil {
			t.Fatal(err)
		}
		if err := runInfo(&InfoOptions{f: f, ID: "url-ext"}); err != nil {
			t.Fatal(err)
		}
		shown = append(shown, out.String())
	}
	want := srv.URL + "/dl/url-ext-1.0.0.tgz"
	if !strings.Contains(string(records), `"resolvedUrl": "`+want+`"`) || !strings.Contains(string(records), `"source": "`+want+`"`) {
		t.Errorf("installed.json does not record the redacted URL:\n%s", records)
	}
	for _, s := range shown {
		if strings.Contains(s, "S3cret") || strings.Contains(s, "alice") {
			t.Errorf("credentials shown:\n%s", s)
		}
	}
}
