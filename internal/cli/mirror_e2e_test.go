package cli

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/npm/npmtest"
)

// TestE2EMirror mirrors a local marketplace whose tarballs a real
// Verdaccio serves, with the real spirit binary: a tampered tarball is
// refused and not written, a second run is a no-op, a run killed while it
// downloads leaves the old mirror usable, and with every server stopped
// the mirror installs from its folder and over a static HTTP server.
func TestE2EMirror(t *testing.T) {
	t.Parallel() // its own Verdaccio and folders; it waits on npm and Node most of the time
	bin := spiritCommand(t)
	v := npmtest.Start(t)
	v.Publish(t, extPackage("mirror-ext", "1.0.0"), extPackage("mirror-ext", "1.1.0"), extPackage("mirror-bad", "1.0.0"),
		extPackage("mirror-late", "1.0.0"))

	work := t.TempDir()
	market := filepath.Join(work, "market")
	type ver struct{ pkg, version string }
	sri := func(p ver) string {
		b, err := os.ReadFile(v.StoredTarball(p.pkg, p.version))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha512.Sum512(b)
		return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	}
	// writeMarket writes a folder index of the given extensions; tarball
	// URLs point at tarballBase (Verdaccio unless told otherwise).
	writeMarket := func(dir string, exts map[string][]ver, tarballBase map[string]string) {
		var items []map[string]any
		for _, id := range []string{"e2e.ext", "e2e.bad", "e2e.late"} {
			vs, ok := exts[id]
			if !ok {
				continue
			}
			pkg := vs[0].pkg
			var versions []map[string]any
			for _, x := range vs {
				base := v.URL
				if b := tarballBase[id]; b != "" {
					base = b
				}
				versions = append(versions, map[string]any{"version": x.version, "channel": "stable", "reviewStatus": "verified",
					"displayName": "E2E " + pkg, "description": "A mirrored extension.", "supportedHosts": []string{"cli", "desktop"},
					"tarballUrl": base + pkg + "/-/" + pkg + "-" + x.version + ".tgz", "integrity": sri(x)})
			}
			last := vs[len(vs)-1].version
			detail := map[string]any{"schemaVersion": 1, "extensionId": id, "packageName": pkg, "status": "listed", "featured": false,
				"defaultVersion": last, "readmePath": "extensions/" + id + "/README.md", "versions": versions}
			writeMirrorJSON(t, filepath.Join(dir, "extensions", id, "detail.json"), detail)
			if err := os.WriteFile(filepath.Join(dir, "extensions", id, "README.md"), []byte("# "+id+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			items = append(items, map[string]any{"extensionId": id, "packageName": pkg, "status": "listed", "featured": false,
				"defaultVersion": last, "defaultChannel": "stable", "defaultReviewStatus": "verified",
				"detailPath": "extensions/" + id + "/detail.json", "displayName": "E2E " + pkg, "description": "A mirrored extension.",
				"supportedHosts": []string{"cli", "desktop"}})
		}
		writeMirrorJSON(t, filepath.Join(dir, "catalog.json"), map[string]any{"schemaVersion": 1, "items": items})
	}
	exts := map[string][]ver{
		"e2e.ext": {{"mirror-ext", "1.0.0"}, {"mirror-ext", "1.1.0"}},
		"e2e.bad": {{"mirror-bad", "1.0.0"}},
	}
	writeMarket(market, exts, nil)
	// Tamper with the stored tarball of mirror-bad: Verdaccio now serves
	// other bytes than the integrity the index lists.
	other, err := os.ReadFile(v.StoredTarball("mirror-ext", "1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(v.StoredTarball("mirror-bad", "1.0.0"), other, 0o644); err != nil {
		t.Fatal(err)
	}

	run := func(t *testing.T, data string, args ...string) (string, string, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "HOME="+filepath.Join(work, "home"), "SPIRIT_AGENT_DATA_DIR="+data, "SPIRIT_HOST=", "SPIRIT_REGISTRY=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	out := filepath.Join(work, "mirror")
	data := filepath.Join(work, "data-mirror")

	_, stderr, err := run(t, data, "--registry", market, "registry", "mirror", "-o", out)
	if err == nil || !strings.Contains(stderr, "e2e.bad@1.0.0") || !strings.Contains(stderr, "integrity") {
		t.Fatalf("mirror with a tampered tarball: err %v\n%s", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "tarballs", "e2e.bad")); !os.IsNotExist(err) {
		t.Errorf("the tampered tarball was written: %v", err)
	}
	for _, name := range []string{"mirror-ext-1.0.0.tgz", "mirror-ext-1.1.0.tgz"} {
		if _, err := os.Stat(filepath.Join(out, "tarballs", "e2e.ext", name)); err != nil {
			t.Error(err)
		}
	}

	// The source drops the tampered extension: the run succeeds, and the
	// next is a no-op.
	delete(exts, "e2e.bad")
	writeMarket(market, exts, nil)
	if _, stderr, err := run(t, data, "--registry", market, "registry", "mirror", "-o", out); err != nil {
		t.Fatalf("mirror: %v\n%s", err, stderr)
	}
	_, stderr, err = run(t, data, "--registry", market, "registry", "mirror", "-o", out)
	if err != nil || !strings.Contains(stderr, "0 tarballs downloaded, 0 files written, 0 removed") {
		t.Fatalf("second run is not a no-op: %v\n%s", err, stderr)
	}
	catalogBefore, err := os.ReadFile(filepath.Join(out, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("killed mid-run", func(t *testing.T) {
		// A source with a new extension whose tarball server hangs: the
		// mirror process is killed while it downloads.
		arrived := make(chan struct{}, 1)
		hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case arrived <- struct{}{}:
			default:
			}
			w.Header().Set("Content-Length", "100000")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(make([]byte, 1000))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		defer hang.Close()
		next := filepath.Join(work, "market-next")
		grown := map[string][]ver{"e2e.ext": exts["e2e.ext"], "e2e.late": {{"mirror-late", "1.0.0"}}}
		writeMarket(next, grown, map[string]string{"e2e.late": hang.URL + "/"})
		cmd := exec.Command(bin, "--registry", next, "registry", "mirror", "-o", out)
		cmd.Env = append(os.Environ(), "HOME="+filepath.Join(work, "home"), "SPIRIT_AGENT_DATA_DIR="+data, "SPIRIT_HOST=")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-arrived:
			_ = cmd.Process.Kill()
			<-done
		case err := <-done:
			t.Fatalf("the mirror ended before the hanging download: %v", err)
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			t.Fatal("the mirror never asked for the hanging tarball")
		}
		after, _ := os.ReadFile(filepath.Join(out, "catalog.json"))
		if !bytes.Equal(after, catalogBefore) {
			t.Error("the killed run changed catalog.json")
		}
	})

	// Nothing but the mirror from here on.
	v.Stop()
	if _, err := http.Get(v.URL); err == nil {
		t.Fatal("Verdaccio still answers")
	}
	install := func(t *testing.T, registry, data string) {
		t.Helper()
		stdout, stderr, err := run(t, data, "--registry", registry, "extension", "marketplace", "install", "e2e.ext", "--version", "1.0.0")
		if err != nil {
			t.Fatalf("install from %s: %v\n%s%s", registry, err, stdout, stderr)
		}
		rec, err := os.ReadFile(filepath.Join(data, "extensions", "cli", ".spirit", "installed.json"))
		if err != nil || !bytes.Contains(rec, []byte(`"mirror-ext"`)) || !bytes.Contains(rec, []byte(sri(ver{"mirror-ext", "1.0.0"}))) {
			t.Errorf("install record: %v\n%s", err, rec)
		}
	}
	t.Run("from the folder", func(t *testing.T) { install(t, out, filepath.Join(work, "data-folder")) })
	t.Run("over static HTTP", func(t *testing.T) {
		srv := httptest.NewServer(http.FileServer(http.Dir(out)))
		defer srv.Close()
		install(t, srv.URL+"/", filepath.Join(work, "data-http"))
	})
}

func writeMirrorJSON(t *testing.T, name string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
