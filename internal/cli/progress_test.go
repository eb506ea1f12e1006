package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
)

// A marketplace download shows the one progress bar on a terminal, ended
// before anything else, and nothing on a pipe (one line with -v).
func TestMarketplaceDownloadProgress(t *testing.T) {
	srv := newStaticRegistry(t, fixtureRegistry)
	bar := regexp.MustCompile(`\r\x1b\[KDownloading @fixture/hello@1\.0\.0 \[#+\] 100% [0-9.]+/[0-9.]+ KiB[^\r\n]*\n`)
	tests := []struct {
		name    string
		tty     bool
		verbose bool
		want    *regexp.Regexp
	}{
		{name: "terminal", tty: true, want: bar},
		{name: "pipe"},
		{name: "pipe -v", verbose: true, want: regexp.MustCompile(`(?m)^Downloading @fixture/hello@1\.0\.0 \([0-9.]+ KiB\)…$`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &cliEnv{data: t.TempDir(), now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
			args := []string{"extension", "marketplace", "install", "fixture.hello", "--version", "1.0.0"}
			if tt.verbose {
				args = append([]string{"-v"}, args...)
			}
			code, out, errOut := e.run(t, srv.URL, tt.tty, "", args...)
			if code != 0 || !strings.Contains(out, "Installed marketplace extension") {
				t.Fatalf("install: %d\n%s\n%s", code, out, errOut)
			}
			switch {
			case tt.want != nil && !tt.want.MatchString(errOut):
				t.Errorf("no progress matching %s in %q", tt.want, errOut)
			case tt.want == nil && strings.Contains(errOut, "Downloading"):
				t.Errorf("progress on a pipe: %q", errOut)
			}
		})
	}
}

// An https URL install shows the same bar, named by the URL's file name
// and never by its credentials, and the result line starts a line of its
// own.
func TestURLDownloadProgress(t *testing.T) {
	body := extTgz(t)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	defer srv.Close()
	ios, _, screen := iostreams.TestTerminal()
	f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now,
		HTTPClient: srv.Client, Global: GlobalOptions{DataDir: t.TempDir()}}
	src := strings.Replace(srv.URL, "https://", "https://alice:S3cret@", 1) + "/dl/url-ext-1.0.0.tgz"
	if err := runInstall(t.Context(), &InstallOptions{f: f, Source: src, LockTimeout: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	got := screen.String()
	want := regexp.MustCompile(`^\r\x1b\[KDownloading url-ext-1\.0\.0\.tgz \[#{20}\] 100% [0-9.]+/[0-9.]+ KiB[^\r\n]*\nInstalled extension: URL\n`)
	if !want.MatchString(got) || strings.Contains(got, "S3cret") {
		t.Fatalf("got %q", got)
	}
}

// The case: unpacking a big package draws a bar, and the result
// line does not land on the end of it.
func TestUnpackBarEndedBeforeResult(t *testing.T) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	add := func(name string, data []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	add("package/package.json", []byte(`{"name":"big-ext","version":"1.0.0","spiritExtension":{"displayName":"Big","supportedHosts":["cli"]}}`))
	big := make([]byte, 6<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = byte(r.Uint32())
	}
	add("package/blob.bin", big)
	tw.Close()
	gz.Close()
	src := filepath.Join(t.TempDir(), "big-ext-1.0.0.tgz")
	if err := os.WriteFile(src, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, _, screen := iostreams.TestTerminal()
	f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now,
		HTTPClient: newHTTPClient, Global: GlobalOptions{DataDir: t.TempDir()}}
	if err := runInstall(t.Context(), &InstallOptions{f: f, Source: src, LockTimeout: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	got := screen.String()
	if !strings.Contains(got, "Unpacking [") || !regexp.MustCompile(`(^|\n)Installed extension: Big\n`).MatchString(got) {
		t.Fatalf("got %q", got)
	}
}
