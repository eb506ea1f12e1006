package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/fetch/fetchtest"
)

// npmTgz is an npm tarball of a minimal extension name@version, with
// extra files of random (incompressible) bytes to make it size bytes or so.
func npmTgz(t *testing.T, name, version string, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	add := func(file string, data []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + file, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	add("package.json", []byte(`{"name":"`+name+`","version":"`+version+`","spiritExtension":{"displayName":"E2E","supportedHosts":["cli"]}}`))
	if size > 0 {
		pad := make([]byte, size)
		rand.Read(pad)
		add("pad.bin", pad)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// packument is the registry document of one version of name whose tarball
// is body, served at tarballURL.
func packument(name, version, tarballURL string, body []byte) []byte {
	sum := sha512.Sum512(body)
	sh := sha1.Sum(body)
	doc := map[string]any{
		"name":      name,
		"dist-tags": map[string]string{"latest": version},
		"versions": map[string]any{version: map[string]any{
			"name": name, "version": version,
			"dist": map[string]string{"tarball": tarballURL, "integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:]), "shasum": hex.EncodeToString(sh[:])},
		}},
	}
	b, _ := json.Marshal(doc)
	return b
}

// runSpirit runs the spirit binary in dir with env added, bounded by limit.
func runSpirit(t *testing.T, limit time.Duration, dir string, env []string, stdin string, args ...string) (stdout, stderr string, err error, took time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, spiritCommand(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err = cmd.Run()
	return out.String(), errb.String(), err, time.Since(start)
}

// An npm tarball that trickles valid gzip bytes, one every 200 ms (never
// idle for the 30 s idle timeout), ends by SPIRIT_DOWNLOAD_TIMEOUT like
// every other download, streamed or not, with an error that says so; nothing
// is installed.
func TestE2ENpmTarballDeadline(t *testing.T) {
	body := npmTgz(t, "slow-ext", "1.0.0", 512)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	mux.HandleFunc("/slow-ext", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(packument("slow-ext", "1.0.0", srv.URL+"/slow-ext/-/slow-ext-1.0.0.tgz", body))
	})
	mux.HandleFunc("/slow-ext/-/slow-ext-1.0.0.tgz", fetchtest.TrickleBody(200*time.Millisecond, body))

	work := t.TempDir()
	env := []string{"HOME=" + work, "SPIRIT_AGENT_DATA_DIR=" + filepath.Join(work, "data"), "SPIRIT_HOST=",
		"npm_config_registry=", "NPM_CONFIG_REGISTRY=", "SPIRIT_DOWNLOAD_TIMEOUT=2s"}
	for _, args := range [][]string{
		{"extension", "install", "npm:slow-ext@1.0.0", "--npm-registry", srv.URL},
	} {
		_, stderr, err, took := runSpirit(t, 40*time.Second, work, env, "", args...)
		if err == nil {
			t.Fatalf("%s: installed\n%s", args, stderr)
		}
		if took > 15*time.Second {
			t.Errorf("%s: ended after %s, the deadline is 2s\n%s", args, took.Round(time.Second), stderr)
		}
		if !strings.Contains(stderr, "did not complete within 2s") {
			t.Errorf("%s: the error does not name the deadline:\n%s", args, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "data", "extensions", "cli", "extensions.json")); err == nil {
		b, _ := os.ReadFile(filepath.Join(work, "data", "extensions", "cli", "extensions.json"))
		if strings.Contains(string(b), "slow-ext") {
			t.Errorf("slow-ext was installed:\n%s", b)
		}
	}
}
