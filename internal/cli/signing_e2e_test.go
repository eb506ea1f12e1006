package cli

import (
	"bytes"
	"encoding/pem"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/spiritagents/spirit/registry/sign"
)

// signedRun runs the real spirit binary; it returns stdout, stderr and the
// exit code.
func signedRun(t *testing.T, bin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "SPIRIT_REGISTRY=", "SPIRIT_HOST="}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// copyIndex copies the fixture index into a new folder.
func copyIndex(t *testing.T) string {
	t.Helper()
	return copyTo(t, filepath.Join("..", "..", "testdata", "catalog", "registry"), filepath.Join(t.TempDir(), "index"))
}

// forgeTimestamp signs the index's timestamp with a key its root does not
// name (the other metadata stays properly signed).
func forgeTimestamp(t *testing.T, index, keys string) {
	t.Helper()
	other := filepath.Join(t.TempDir(), "other")
	if _, err := sign.InitKeys(other); err != nil {
		t.Fatal(err)
	}
	forged := filepath.Join(t.TempDir(), "forged")
	for _, role := range []string{"root", "targets", "snapshot"} {
		writeFile(t, sign.KeyFile(forged, role), []byte(readFile(t, sign.KeyFile(keys, role))))
	}
	writeFile(t, sign.KeyFile(forged, "timestamp"), []byte(readFile(t, sign.KeyFile(other, "timestamp"))))
	tuf := filepath.Join(index, "tuf")
	realRoot, realFirst := readFile(t, filepath.Join(tuf, "root.json")), readFile(t, filepath.Join(tuf, "1.root.json"))
	if err := os.Remove(filepath.Join(tuf, "root.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := sign.Sign(sign.Options{IndexDir: index, KeyDir: forged}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(tuf, "root.json"), []byte(realRoot))
	writeFile(t, filepath.Join(tuf, "1.root.json"), []byte(realFirst))
}

func saveMeta(t *testing.T, index string) map[string]string {
	out := map[string]string{}
	for _, n := range []string{"timestamp.json", "snapshot.json", "targets.json"} {
		out[n] = readFile(t, filepath.Join(index, "tuf", n))
	}
	return out
}

func restoreMeta(t *testing.T, index string, m map[string]string) {
	for n, s := range m {
		writeFile(t, filepath.Join(index, "tuf", n), []byte(s))
	}
}

// An index signed by the real binary, read as a folder: installs verify;
// a changed detail, a rollback, an expired timestamp, a wrong key and
// stripped metadata are each refused with the file, the attack and a hint,
// and nothing is installed; a rotated root is followed.
func TestE2ESignedIndexFolder(t *testing.T) {
	bin := spiritCommand(t)
	keys := filepath.Join(t.TempDir(), "keys")
	index := copyIndex(t)
	data := t.TempDir()
	env := []string{"SPIRIT_AGENT_DATA_DIR=" + data, "SPIRIT_REGISTRY=" + index}
	run := func(args ...string) (string, string, int) { return signedRun(t, bin, env, args...) }

	out, _, code := run("registry", "keys", "init", keys)
	if code != 0 || !regexp.MustCompile(`^[0-9a-f]{64}\n$`).MatchString(out) {
		t.Fatalf("keys init: %d %q", code, out)
	}
	rootID := strings.TrimSpace(out)
	if fi, err := os.Stat(sign.KeyFile(keys, "timestamp")); err != nil || (fi.Mode().Perm()&0o077 != 0 && runtime.GOOS != "windows") {
		t.Fatalf("private key mode: %v %v", fi.Mode(), err)
	}
	if _, e, code := run("registry", "sign", keys, "--root", index); code != 0 {
		t.Fatalf("sign: %s", e)
	}

	out, e, code := run("--json", "extension", "marketplace", "list")
	if code != 0 || !strings.Contains(out, `"rootKeyIds": [`) || !strings.Contains(out, rootID) {
		t.Fatalf("list: %d %s %s", code, out, e)
	}
	if !strings.Contains(e, "Notice: trusting the signed index") || !strings.Contains(e, rootID[:16]) {
		t.Fatalf("no trust-on-first-use notice: %s", e)
	}
	if _, e, _ := run("extension", "marketplace", "list"); strings.Contains(e, "Notice") || !strings.Contains(e, "signed index: root key "+rootID[:16]) {
		t.Fatalf("second list: %s", e)
	}

	site := filepath.Join(t.TempDir(), "site")
	if _, e, code := run("registry", "site", "--root", index, "-o", site); code != 0 {
		t.Fatalf("site: %s", e)
	}
	if !strings.Contains(readFile(t, filepath.Join(site, "index.html")), "The index is signed (TUF): root key <code>"+rootID[:16]) {
		t.Error("the site does not show the signing root")
	}

	installed := func() bool {
		out, _, _ := run("--json", "extension", "list")
		return strings.Contains(out, "@fixture/hello")
	}
	refused := func(t *testing.T, file, attack string) {
		t.Helper()
		_, e, code := run("extension", "marketplace", "install", "fixture.hello", "--version", "1.0.0")
		if code == 0 || !strings.Contains(e, file) || !strings.Contains(e, attack) || !strings.Contains(e, "Hint: ") {
			t.Fatalf("want %s refused as %q, got %d: %s", file, attack, code, e)
		}
		if installed() {
			t.Fatal("installed from a refused index")
		}
	}

	t.Run("tampered detail", func(t *testing.T) {
		d := filepath.Join(index, "extensions", "fixture.hello", "detail.json")
		orig := readFile(t, d)
		writeFile(t, d, []byte(strings.Replace(orig, `"1.0.0"`, `"1.0.0" `, 1)))
		refused(t, "extensions/fixture.hello/detail.json", "tampered")
		writeFile(t, d, []byte(orig))
	})
	t.Run("tampered catalog", func(t *testing.T) {
		c := filepath.Join(index, "catalog.json")
		orig := readFile(t, c)
		writeFile(t, c, []byte(orig+" "))
		refused(t, "catalog.json", "tampered")
		writeFile(t, c, []byte(orig))
	})
	t.Run("rollback", func(t *testing.T) {
		old := saveMeta(t, index)
		if _, e, code := run("registry", "sign", keys, "--root", index); code != 0 {
			t.Fatal(e)
		}
		if _, e, code := run("extension", "marketplace", "detail", "fixture.hello"); code != 0 {
			t.Fatal(e)
		}
		newer := saveMeta(t, index)
		restoreMeta(t, index, old)
		refused(t, "tuf/timestamp.json", "rollback")
		restoreMeta(t, index, newer)
	})
	t.Run("freeze", func(t *testing.T) {
		saved := saveMeta(t, index)
		// signed three hours ago for one hour: expired two hours ago.
		if _, err := sign.Sign(sign.Options{IndexDir: index, KeyDir: keys, TimestampExpiry: time.Hour,
			Now: func() time.Time { return time.Now().Add(-3 * time.Hour) }}); err != nil {
			t.Fatal(err)
		}
		refused(t, "tuf/timestamp.json", "freeze")
		_, e, code := run("--allow-expired-index", "extension", "marketplace", "detail", "fixture.hello")
		if code != 0 || !strings.Contains(e, "Warning: the signed index metadata expired") {
			t.Fatalf("--allow-expired-index: %d %s", code, e)
		}
		_ = saved // a newer signing, not the old files: the client saw the expired version
		if _, e, code := run("registry", "sign", keys, "--root", index); code != 0 {
			t.Fatal(e)
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		saved := saveMeta(t, index)
		forgeTimestamp(t, index, keys)
		refused(t, "tuf/timestamp.json", "wrong key")
		restoreMeta(t, index, saved)
	})
	t.Run("stripped", func(t *testing.T) {
		tuf := filepath.Join(index, "tuf")
		hidden := tuf + ".hidden"
		if err := os.Rename(tuf, hidden); err != nil {
			t.Fatal(err)
		}
		refused(t, "tuf/", "signature stripped")
		if err := os.Rename(hidden, tuf); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("rotated root", func(t *testing.T) {
		out, e, code := run("registry", "keys", "rotate", keys, "--role", "root", "--root", index)
		if code != 0 || strings.TrimSpace(out) == rootID {
			t.Fatalf("rotate: %d %s %s", code, out, e)
		}
		out, e, code = run("--json", "extension", "marketplace", "detail", "fixture.hello")
		if code != 0 || !strings.Contains(out, `"rootVersion": 2`) || strings.Contains(out, rootID) {
			t.Fatalf("after rotation: %d %s %s", code, out, e)
		}
		// a root version 3 signed by a key the pinned root does not know is refused.
		other := filepath.Join(t.TempDir(), "other")
		if _, err := sign.InitKeys(other); err != nil {
			t.Fatal(err)
		}
		writeFile(t, sign.KeyFile(keys, "root"), []byte(readFile(t, sign.KeyFile(other, "root"))))
		if _, err := sign.RotateKey(sign.Options{IndexDir: index, KeyDir: keys}, "timestamp"); err == nil {
			t.Fatal("rotation with a root key the root does not name was accepted")
		}
	})

	if _, e, code := run("extension", "marketplace", "install", "fixture.hello", "--version", "1.0.0"); code != 0 || !installed() {
		t.Fatalf("install from the signed folder: %s", e)
	}

	// --require-signed refuses an unsigned index; SPIRIT_REQUIRE_SIGNED too.
	unsigned := filepath.Join("..", "..", "testdata", "catalog", "registry")
	for _, e := range [][]string{{"--require-signed"}, nil} {
		env := []string{"SPIRIT_AGENT_DATA_DIR=" + t.TempDir(), "SPIRIT_REGISTRY=" + unsigned}
		if e == nil {
			env = append(env, "SPIRIT_REQUIRE_SIGNED=1")
		}
		_, stderr, code := signedRun(t, bin, env, append(e, "extension", "marketplace", "list")...)
		if code == 0 || !strings.Contains(stderr, "not signed and signatures are required") {
			t.Fatalf("unsigned with %v: %d %s", e, code, stderr)
		}
	}
}

// The same signed index over https and as a git repository; then a mirror
// of it, pinned explicitly to the source's root.
func TestE2ESignedIndexHTTPSGitMirror(t *testing.T) {
	bin := spiritCommand(t)
	keys := filepath.Join(t.TempDir(), "keys")
	index := copyIndex(t)
	if _, e, code := signedRun(t, bin, nil, "registry", "keys", "init", keys); code != 0 {
		t.Fatal(e)
	}
	if _, e, code := signedRun(t, bin, nil, "registry", "sign", keys, "--root", index); code != 0 {
		t.Fatal(e)
	}

	var tamper atomic.Bool
	files := http.FileServer(http.Dir(index))
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tamper.Load() && r.URL.Path == "/extensions/fixture.hello/detail.json" {
			_, _ = w.Write([]byte(strings.Replace(readFile(t, filepath.Join(index, "extensions", "fixture.hello", "detail.json")), "Hello", "Hullo", 1)))
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	writeFile(t, ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))

	t.Run("https", func(t *testing.T) {
		env := []string{"SPIRIT_AGENT_DATA_DIR=" + t.TempDir(), "SPIRIT_REGISTRY=" + srv.URL + "/", "SSL_CERT_FILE=" + ca}
		_, e, code := signedRun(t, bin, env, "extension", "marketplace", "install", "fixture.hello", "--version", "1.0.0")
		if code != 0 || !strings.Contains(e, "Notice: trusting the signed index") {
			t.Fatalf("install over https: %d %s", code, e)
		}
		tamper.Store(true)
		defer tamper.Store(false)
		_, e, code = signedRun(t, bin, env, "--max-age", "0s", "extension", "marketplace", "install", "fixture.hello", "--version", "1.1.0", "--replace")
		if code == 0 || !strings.Contains(e, "extensions/fixture.hello/detail.json: the file does not match the signed metadata") {
			t.Fatalf("tampered over https: %d %s", code, e)
		}
	})

	t.Run("git", func(t *testing.T) {
		work := filepath.Join(t.TempDir(), "repo")
		copyTo(t, index, work)
		repo, err := git.PlainInit(work, false)
		if err != nil {
			t.Fatal(err)
		}
		wt, _ := repo.Worktree()
		commit := func(msg string) {
			if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
				t.Fatal(err)
			}
			sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()}
			if _, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
				t.Fatal(err)
			}
		}
		commit("signed index")
		env := []string{"SPIRIT_AGENT_DATA_DIR=" + t.TempDir(), "SPIRIT_REGISTRY=git+file://" + filepath.ToSlash(work)}
		if _, e, code := signedRun(t, bin, env, "extension", "marketplace", "install", "fixture.hello", "--version", "1.0.0"); code != 0 {
			t.Fatalf("install from git: %s", e)
		}
		d := filepath.Join(work, "extensions", "fixture.hello", "detail.json")
		writeFile(t, d, []byte(strings.Replace(readFile(t, d), "Hello", "Hullo", 1)))
		commit("tampered")
		_, e, code := signedRun(t, bin, env, "--max-age", "0s", "extension", "marketplace", "detail", "fixture.hello")
		if code == 0 || !strings.Contains(e, "extensions/fixture.hello/detail.json: the file does not match the signed metadata") {
			t.Fatalf("tampered git: %d %s", code, e)
		}
	})

	t.Run("mirror", func(t *testing.T) {
		mirror := filepath.Join(t.TempDir(), "mirror")
		env := []string{"SPIRIT_AGENT_DATA_DIR=" + t.TempDir(), "SPIRIT_REGISTRY=" + srv.URL + "/", "SSL_CERT_FILE=" + ca}
		out, e, _ := signedRun(t, bin, env, "--json", "registry", "mirror", "-o", mirror, "--ids", "fixture.hello")
		if !strings.Contains(out, `"tuf/timestamp.json"`) {
			t.Fatalf("mirror: %s %s", out, e)
		}
		// a fresh client pins the source's root explicitly, then installs offline from the mirror.
		menv := []string{"SPIRIT_AGENT_DATA_DIR=" + t.TempDir(), "SPIRIT_REGISTRY=" + mirror}
		if _, e, code := signedRun(t, bin, menv, "extension", "marketplace", "trust", "--root", filepath.Join(index, "tuf", "root.json")); code != 0 {
			t.Fatal(e)
		}
		out, e, code := signedRun(t, bin, menv, "extension", "marketplace", "install", "fixture.hello", "--version", "1.1.0")
		if code != 0 || strings.Contains(e, "Notice: trusting") || !strings.Contains(out, "Installed marketplace extension") {
			t.Fatalf("install from the mirror: %d %s %s", code, out, e)
		}
		// the mirror's own detail may move tarballs, not change what is signed.
		orig := filepath.Join(mirror, "tuf", "targets", "extensions", "fixture.hello", "detail.json")
		writeFile(t, orig, []byte(strings.Replace(readFile(t, orig), "Hello", "Hullo", 1)))
		_, e, code = signedRun(t, bin, menv, "extension", "marketplace", "detail", "fixture.hello")
		if code == 0 || !strings.Contains(e, "tampered") {
			t.Fatalf("tampered mirror: %d %s", code, e)
		}
		// a root from other keys refuses the mirror.
		other := filepath.Join(t.TempDir(), "other")
		oidx := copyIndex(t)
		if _, e, code := signedRun(t, bin, nil, "registry", "keys", "init", other); code != 0 {
			t.Fatal(e)
		}
		if _, e, code := signedRun(t, bin, nil, "registry", "sign", other, "--root", oidx); code != 0 {
			t.Fatal(e)
		}
		if _, e, code := signedRun(t, bin, menv, "extension", "marketplace", "trust", "--root", filepath.Join(oidx, "tuf", "root.json")); code != 0 {
			t.Fatal(e)
		}
		_, e, code = signedRun(t, bin, menv, "extension", "marketplace", "list")
		if code == 0 || !strings.Contains(e, "wrong key") {
			t.Fatalf("mirror under another root: %d %s", code, e)
		}
	})
}

// copyTo copies the folder src to dst and returns dst.
func copyTo(t *testing.T, src, dst string) string {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
