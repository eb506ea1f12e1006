package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
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
)

// signingRegistry is an npm registry that signs what it serves as the
// public registry does (its own P-256 key, published at /-/npm/v1/keys)
// and serves SLSA provenance attestations; fields change what it serves.
type signingRegistry struct {
	srv   *httptest.Server
	key   *ecdsa.PrivateKey
	keyID string

	mu       sync.Mutex
	tarballs map[string][]byte // name@version → tgz
	unsigned map[string]bool   // name@version served without dist.signatures
	wrongKey map[string]bool   // name@version signed by another key
}

func newSigningRegistry(t *testing.T) *signingRegistry {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	r := &signingRegistry{key: key, keyID: "SHA256:test-registry-key", tarballs: map[string][]byte{},
		unsigned: map[string]bool{}, wrongKey: map[string]bool{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *signingRegistry) url() string { return r.srv.URL + "/" }

// publish adds an extension package name@version.
func (r *signingRegistry) publish(t *testing.T, name, version string) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	files := map[string]string{
		"package/package.json": `{"name":"` + name + `","version":"` + version + `","main":"index.mjs",` +
			`"spiritExtension":{"displayName":"Signed ` + name + `","supportedHosts":["cli","desktop"]}}`,
		"package/index.mjs": "export function activate() {}\n",
	}
	for _, n := range []string{"package/package.json", "package/index.mjs"} {
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), ModTime: time.Unix(0, 0)})
		tw.Write([]byte(files[n]))
	}
	tw.Close()
	gz.Close()
	r.mu.Lock()
	r.tarballs[name+"@"+version] = buf.Bytes()
	r.mu.Unlock()
}

func sriOf(data []byte) string {
	sum := sha512.Sum512(data)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

func (r *signingRegistry) sign(key *ecdsa.PrivateKey, id, integrity string) string {
	h := sha256.Sum256([]byte(id + ":" + integrity))
	sig, err := ecdsa.SignASN1(rand.Reader, key, h[:])
	if err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(sig)
}

func (r *signingRegistry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	path := req.URL.EscapedPath()
	switch {
	case path == "/-/npm/v1/keys":
		der, _ := x509.MarshalPKIXPublicKey(&r.key.PublicKey)
		json.NewEncoder(w).Encode(map[string]any{"keys": []any{map[string]any{"expires": nil, "keyid": r.keyID,
			"keytype": "ecdsa-sha2-nistp256", "scheme": "ecdsa-sha2-nistp256", "key": base64.StdEncoding.EncodeToString(der)}}})
	case strings.HasPrefix(path, "/-/npm/v1/attestations/"):
		id := strings.TrimPrefix(path, "/-/npm/v1/attestations/")
		data, ok := r.tarballs[id]
		if !ok {
			http.NotFound(w, req)
			return
		}
		name, version, _ := strings.Cut(id, "@")
		sum := sha512.Sum512(data)
		stmt, _ := json.Marshal(map[string]any{
			"_type":         "https://in-toto.io/Statement/v1",
			"subject":       []any{map[string]any{"name": "pkg:npm/" + name + "@" + version, "digest": map[string]any{"sha512": hex.EncodeToString(sum[:])}}},
			"predicateType": "https://slsa.dev/provenance/v1",
			"predicate": map[string]any{
				"buildDefinition": map[string]any{
					"externalParameters":   map[string]any{"workflow": map[string]any{"ref": "refs/tags/v" + version, "repository": "https://github.com/example/" + name, "path": ".github/workflows/release.yml"}},
					"resolvedDependencies": []any{map[string]any{"uri": "git+https://github.com/example/" + name + "@refs/tags/v" + version, "digest": map[string]any{"gitCommit": strings.Repeat("ab", 20)}}},
				},
				"runDetails": map[string]any{"builder": map[string]any{"id": "https://github.com/actions/runner/github-hosted"},
					"metadata": map[string]any{"invocationId": "https://github.com/example/" + name + "/actions/runs/1/attempts/1"}},
			},
		})
		json.NewEncoder(w).Encode(map[string]any{"attestations": []any{map[string]any{"predicateType": "https://slsa.dev/provenance/v1",
			"bundle": map[string]any{"dsseEnvelope": map[string]any{"payloadType": "application/vnd.in-toto+json", "payload": base64.StdEncoding.EncodeToString(stmt)}}}}})
	case strings.Contains(path, "/-/"):
		name := path[1:strings.Index(path, "/-/")]
		file := path[strings.LastIndex(path, "/")+1:]
		version := strings.TrimSuffix(strings.TrimPrefix(file, name+"-"), ".tgz")
		data, ok := r.tarballs[name+"@"+version]
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Write(data)
	default:
		name := strings.TrimPrefix(path, "/")
		versions := map[string]any{}
		latest := ""
		for id, data := range r.tarballs {
			n, v, _ := strings.Cut(id, "@")
			if n != name {
				continue
			}
			integrity := sriOf(data)
			dist := map[string]any{"tarball": r.url() + name + "/-/" + name + "-" + v + ".tgz", "integrity": integrity,
				"attestations": map[string]any{"url": "https://registry.npmjs.org/-/npm/v1/attestations/" + id, "provenance": map[string]any{"predicateType": "https://slsa.dev/provenance/v1"}}}
			key := r.key
			if r.wrongKey[id] {
				key, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			}
			if !r.unsigned[id] {
				dist["signatures"] = []any{map[string]any{"keyid": r.keyID, "sig": r.sign(key, id, integrity)}}
			}
			versions[v] = map[string]any{"name": n, "version": v, "dist": dist}
			latest = v
		}
		if latest == "" {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"name": name, "dist-tags": map[string]any{"latest": latest}, "versions": versions})
	}
}

// TestE2ENpmSignatures installs from a registry that signs its packages,
// with the real spirit binary: a signed package installs and `info` shows
// the key and the (unverified) provenance; a missing signature or one by
// another key is refused, naming the package, the key and the registry,
// with a Hint, and nothing is installed.
func TestE2ENpmSignatures(t *testing.T) {
	bin := spiritCommand(t)
	reg := newSigningRegistry(t)
	reg.publish(t, "signed-ext", "1.0.0")
	reg.publish(t, "unsigned-ext", "1.0.0")
	reg.publish(t, "forged-ext", "1.0.0")
	reg.unsigned["unsigned-ext@1.0.0"] = true
	reg.wrongKey["forged-ext@1.0.0"] = true

	work := t.TempDir()
	data := filepath.Join(work, "data")
	run := func(args ...string) (string, string, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "HOME="+work, "SPIRIT_AGENT_DATA_DIR="+data, "SPIRIT_HOST=",
			"npm_config_registry=", "NPM_CONFIG_REGISTRY=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}

	_, stderr, err := run("-v", "extension", "install", "npm:signed-ext", "--npm-registry", reg.url())
	if err != nil {
		t.Fatalf("signed install: %v\n%s", err, stderr)
	}
	if want := "registry signature of signed-ext@1.0.0 verified with key " + reg.keyID; !strings.Contains(stderr, want) {
		t.Errorf("-v does not say %q:\n%s", want, stderr)
	}
	out, stderr, err := run("extension", "info", "signed-ext")
	if err != nil {
		t.Fatalf("info: %v\n%s", err, stderr)
	}
	for _, want := range []string{
		"registry_signature: registry signature of signed-ext@1.0.0 verified with key " + reg.keyID + " of " + reg.url(),
		"provenance: unverified provenance: built from https://github.com/example/signed-ext at commit " + strings.Repeat("ab", 20) + " (refs/tags/v1.0.0) by workflow .github/workflows/release.yml",
		"provenance_build: https://github.com/example/signed-ext/actions/runs/1/attempts/1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	out, _, err = run("extension", "info", "signed-ext", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		NPMSignature struct {
			Status string   `json:"status"`
			KeyIDs []string `json:"keyIds"`
		} `json:"npmSignature"`
		Provenance struct {
			Repository, Commit, Workflow string
			Verified                     bool `json:"verified"`
		} `json:"provenance"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.NPMSignature.Status != "verified" || len(j.NPMSignature.KeyIDs) != 1 || j.Provenance.Repository != "https://github.com/example/signed-ext" || j.Provenance.Verified {
		t.Errorf("info --json: %+v\n%s", j, out)
	}

	for _, tc := range []struct{ id, want string }{
		{"unsigned-ext", "unsigned-ext@1.0.0 from " + reg.url() + " has no registry signature"},
		{"forged-ext", "forged-ext@1.0.0 from " + reg.url() + " has an invalid registry signature (key " + reg.keyID + ")"},
	} {
		before := listDir(t, filepath.Join(data, "extensions", "cli"))
		_, stderr, err := run("extension", "install", "npm:"+tc.id, "--npm-registry", reg.url())
		if err == nil {
			t.Fatalf("%s installed", tc.id)
		}
		if !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "Hint: ") {
			t.Errorf("%s: stderr lacks %q and a hint:\n%s", tc.id, tc.want, stderr)
		}
		if after := listDir(t, filepath.Join(data, "extensions", "cli")); after != before {
			t.Errorf("%s: the extensions directory changed:\nbefore %s\nafter  %s", tc.id, before, after)
		}
	}
}
