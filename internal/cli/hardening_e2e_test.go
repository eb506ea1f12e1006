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
	"sync"
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
func runSpirit(t *testing.T, limit time.Duration, dir string, env []string, stdin string, args ...string) (stdout, stderr string, took time.Duration, err error) {
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
	return out.String(), errb.String(), time.Since(start), err
}

// An npm tarball that trickles valid gzip bytes, one every 200 ms (never
// idle for the 30 s idle timeout), ends by SPIRIT_DOWNLOAD_TIMEOUT like
// every other download, streamed (install) or not (sync), with an error that
// says so; nothing is installed.
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
	// sync fetches an npm entry to a file first (not streamed).
	sum := sha512.Sum512(body)
	lock := `{"lockfileVersion": 1, "host": "cli", "extensions": {"slow-ext": {
  "version": "1.0.0", "source": "slow-ext@1.0.0", "kind": "npm",
  "integrity": "sha512-` + base64.StdEncoding.EncodeToString(sum[:]) + `",
  "manifestDigest": "sha512-` + base64.StdEncoding.EncodeToString(make([]byte, 64)) + `",
  "npmRegistry": "` + srv.URL + `/", "enabled": true}}}`
	if err := os.WriteFile(filepath.Join(work, "spirit-lock.json"), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"extension", "install", "npm:slow-ext@1.0.0", "--npm-registry", srv.URL},
		{"extension", "sync"},
	} {
		_, stderr, took, err := runSpirit(t, 40*time.Second, work, env, "", args...)
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

// A lock file cannot downgrade an npm token to plain http. The .npmrc says
// registry=https://npm.corp.example/ with its _authToken; a lock whose
// npmRegistry is http://npm.corp.example/ reaches the network through an
// http proxy (a test server that records what it is sent). sync refuses
// the entry, naming the registry, and the token never leaves the process.
func TestE2ELockCannotDowngradeToken(t *testing.T) {
	const token = "npm_corp_secret_7c1e"
	body := npmTgz(t, "corp-ext", "1.0.0", 0)
	var mu sync.Mutex
	var seen bytes.Buffer
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen.WriteString(r.Method + " " + r.URL.String() + " Authorization: " + r.Header.Get("Authorization") + "\n")
		mu.Unlock()
		switch r.URL.Path {
		case "/corp-ext":
			w.Write(packument("corp-ext", "1.0.0", "http://npm.corp.example/corp-ext/-/corp-ext-1.0.0.tgz", body))
		case "/corp-ext/-/corp-ext-1.0.0.tgz":
			w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}))
	defer proxy.Close()

	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, ".npmrc"), []byte("registry=https://npm.corp.example/\n//npm.corp.example/:_authToken="+token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(body)
	lock := `{"lockfileVersion": 1, "host": "cli", "extensions": {"corp-ext": {
  "version": "1.0.0", "source": "corp-ext@1.0.0", "kind": "npm",
  "integrity": "sha512-` + base64.StdEncoding.EncodeToString(sum[:]) + `",
  "manifestDigest": "sha512-` + base64.StdEncoding.EncodeToString(make([]byte, 64)) + `",
  "npmRegistry": "http://npm.corp.example/", "enabled": true}}}`
	if err := os.WriteFile(filepath.Join(work, "spirit-lock.json"), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + work, "SPIRIT_AGENT_DATA_DIR=" + filepath.Join(work, "data"), "SPIRIT_HOST=",
		"npm_config_registry=", "NPM_CONFIG_REGISTRY=", "npm_config_userconfig=",
		"HTTP_PROXY=" + proxy.URL, "http_proxy=" + proxy.URL, "NO_PROXY=", "no_proxy="}
	_, stderr, _, err := runSpirit(t, time.Minute, work, env, "", "extension", "sync")
	mu.Lock()
	got := seen.String()
	mu.Unlock()
	if strings.Contains(got, token) {
		t.Errorf("the token went over plain http:\n%s", got)
	}
	if err == nil {
		t.Fatalf("sync succeeded\n%s", stderr)
	}
	if !strings.Contains(stderr, "registry http://npm.corp.example/ is plain http") {
		t.Errorf("the error does not say why:\n%s", stderr)
	}
}
