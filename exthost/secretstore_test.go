package exthost

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/testutil/silentbus"
)

func envOf(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}

// noSessionBus makes sure no D-Bus session bus is known to this process.
func noSessionBus(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the session bus decides the store on Linux only")
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	if why := noSystemKeyring(); why == "" {
		t.Skip("a session bus exists at /run/user/<uid>/bus on this machine")
	}
}

// TestSecretStoreFallsBackToFile: with no session bus and no choice, the
// store is a 0600 file in a 0700 folder, and only the first open says it
// fell back.
func TestSecretStoreFallsBackToFile(t *testing.T) {
	noSessionBus(t)
	dir := filepath.Join(t.TempDir(), "spirit-keyring")
	store, info, err := OpenSecretStore(SecretStoreConfig{FileDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != StoreFile || !info.Fallback || !info.FirstFallback || info.Encrypted ||
		!strings.Contains(info.Reason, "no D-Bus session bus") || info.Path != filepath.Join(dir, "secrets.json") {
		t.Fatalf("info = %+v", info)
	}
	if _, err := store.Get("a"); !errors.Is(err, ErrSecretNotFound) {
		t.Fatalf("get of nothing: %v", err)
	}
	if err := store.Set("a", "value-1"); err != nil {
		t.Fatal(err)
	}
	if v, err := store.Get("a"); v != "value-1" || err != nil {
		t.Fatalf("get = %q, %v", v, err)
	}
	if runtime.GOOS != "windows" {
		for path, want := range map[string]os.FileMode{dir: 0o700, info.Path: 0o600} {
			fi, err := os.Stat(path)
			if err != nil || fi.Mode().Perm() != want {
				t.Fatalf("%s: mode %v, %v; want %v", path, fi.Mode().Perm(), err, want)
			}
		}
	}
	_, again, err := OpenSecretStore(SecretStoreConfig{FileDir: dir})
	if err != nil || again.FirstFallback || !again.Fallback {
		t.Fatalf("second open: %+v, %v", again, err)
	}
	if err := store.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if err := store.Delete("a"); !errors.Is(err, ErrSecretNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

// TestSecretStoreEncryptedFile: with SPIRIT_KEYRING_PASSWORD the value is
// in no file in clear, and the store cannot be opened without it.
func TestSecretStoreEncryptedFile(t *testing.T) {
	dir := t.TempDir()
	withPassword := envOf("SPIRIT_KEYRING_BACKEND", "file", "SPIRIT_KEYRING_PASSWORD", "pw-1")
	store, info, err := OpenSecretStore(SecretStoreConfig{Getenv: withPassword, FileDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != StoreFile || !info.Encrypted || info.Fallback {
		t.Fatalf("info = %+v", info)
	}
	if err := store.Set("acct", "clear-text-value"); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if strings.Contains(string(data), "clear-text-value") {
			t.Fatalf("%s holds the value in clear", e.Name())
		}
	}
	noPassword, _, err := OpenSecretStore(SecretStoreConfig{Getenv: envOf("SPIRIT_KEYRING_BACKEND", "file"), FileDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noPassword.Get("acct"); !errors.Is(err, ErrNoKeyringPassword) {
		t.Fatalf("get without the password: %v", err)
	}
	if v, err := store.Get("acct"); v != "clear-text-value" || err != nil {
		t.Fatalf("get = %q, %v", v, err)
	}
}

// TestSecretStoreExplicitChoiceFailsFast: a named store that cannot work
// here is an error with the reason, at once.
func TestSecretStoreExplicitChoiceFailsFast(t *testing.T) {
	noSessionBus(t)
	for _, choice := range []string{"system", "secret-service", "pass"} {
		start := time.Now()
		_, _, err := OpenSecretStore(SecretStoreConfig{Getenv: envOf("SPIRIT_KEYRING_BACKEND", choice), FileDir: t.TempDir()})
		var ue *KeyringUnavailableError
		if !errors.As(err, &ue) || ue.Backend != choice {
			t.Fatalf("%s: %v", choice, err)
		}
		if time.Since(start) > 2*time.Second {
			t.Fatalf("%s took %v", choice, time.Since(start))
		}
		t.Logf("%s: %v", choice, err)
	}
}

// silentBus is a Unix socket that accepts D-Bus clients and never answers.
func silentBus(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "spirit-bus-")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bus")
	stop, err := silentbus.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stop()
		os.RemoveAll(dir)
	})
	return "unix:path=" + path
}

// TestSecretStoreNeverAnswers: a session bus that accepts and never replies
// gives a *KeyringTimeoutError within the bound, automatic choice or not,
// and no fallback (the keyring exists; it does not answer).
func TestSecretStoreNeverAnswers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the keyrings of Linux are the ones on D-Bus")
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", silentBus(t))
	const bound = 500 * time.Millisecond
	for _, choice := range []string{"", "system"} {
		start := time.Now()
		_, _, err := OpenSecretStore(SecretStoreConfig{Getenv: envOf("SPIRIT_KEYRING_BACKEND", choice), FileDir: t.TempDir(), Timeout: bound})
		took := time.Since(start)
		var te *KeyringTimeoutError
		if !errors.As(err, &te) || !errors.Is(err, ErrKeyringTimeout) {
			t.Fatalf("choice %q: %v", choice, err)
		}
		if took < bound || took > bound+2*time.Second {
			t.Fatalf("choice %q: took %v, bound %v", choice, took, bound)
		}
		if !strings.Contains(err.Error(), "did not answer within 500ms") {
			t.Fatalf("message: %v", err)
		}
	}
	// Secrets do not wait for it a second time.
	opens := 0
	sec := NewSecrets(func() (SecretStore, error) {
		opens++
		store, _, err := OpenSecretStore(SecretStoreConfig{FileDir: t.TempDir(), Timeout: bound})
		return store, err
	})
	p := installFixtures(t, "kitchen")
	h := newTestHost(t, p, func(o *Options) { o.Secrets = sec })
	ext, err := h.Extension("@fixture/kitchen")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, _, err := sec.Get(ext.Manifest, "api-key"); !errors.Is(err, ErrKeyringTimeout) {
			t.Fatalf("get: %v", err)
		}
	}
	if opens != 1 {
		t.Fatalf("the store was opened %d times", opens)
	}
}

// TestSecretsRunValues: a run value is given instead of the stored one and
// never reaches the store; another slot or extension still reads the store.
func TestSecretsRunValues(t *testing.T) {
	p := installFixtures(t, "kitchen")
	sec := fileSecrets(t)
	h := newTestHost(t, p, func(o *Options) { o.Secrets = sec })
	ext, err := h.Extension("@fixture/kitchen")
	if err != nil {
		t.Fatal(err)
	}
	m := ext.Manifest
	if err := sec.Set(m, "api-key", "stored-value"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Call(t.Context(), CallRequest{Name: "@fixture/kitchen/secret", Arguments: []byte(`{"op":"has","key":"api-key"}`),
		Secrets: map[string]string{"other": "x"}}); !errors.As(err, new(*UndeclaredSecretError)) {
		t.Fatalf("undeclared run secret: %v", err)
	}
	res, err := h.Call(t.Context(), CallRequest{Name: "@fixture/kitchen/secret", Arguments: []byte(`{"op":"get","key":"api-key"}`),
		Secrets: map[string]string{"api-key": " run-value-1 "}})
	if err != nil || res.Text != "the secret is ***" {
		t.Fatalf("get = %v, %v", res, err)
	}
	if _, err := call(t, h, "@fixture/kitchen/secret", `{"op":"set","key":"api-key","value":"changed-in-run"}`); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := sec.Get(m, "api-key"); v != "changed-in-run" || !ok || err != nil {
		t.Fatalf("run value = %q %v %v", v, ok, err)
	}
	store, err := sec.secretStore()
	if err != nil {
		t.Fatal(err)
	}
	if v, err := store.Get(SecretAccount(m.ID, "api-key")); v != "stored-value" || err != nil {
		t.Fatalf("stored = %q, %v; the run value must not reach the store", v, err)
	}
}

// TestSecretStoreBusWithoutKeyring: on a real session bus where no keyring
// answers (a private dbus-daemon that can start no service), the automatic
// choice falls back to the file store and says why, on one line.
func TestSecretStoreBusWithoutKeyring(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the keyrings of Linux are the ones on D-Bus")
	}
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("dbus-daemon is not installed (apt-get install dbus)")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "bus")
	conf := `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=` + sock + `</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>`
	if err := os.WriteFile(filepath.Join(dir, "bus.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("dbus-daemon", "--config-file="+filepath.Join(dir, "bus.conf"), "--fork", "--print-pid=1").Output()
	if err != nil {
		t.Fatalf("dbus-daemon: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("dbus-daemon printed %q", out)
	}
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Signal(syscall.SIGTERM)
		}
	})
	// The D-Bus library keeps its session bus connection for the process,
	// so the check runs in a child test process.
	child := exec.Command(os.Args[0], "-test.run=^TestSecretStoreBusWithoutKeyringChild$", "-test.v")
	child.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=unix:path="+sock, "SPIRIT_TEST_PLAIN_BUS_CHILD=1")
	out, err = child.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestSecretStoreBusWithoutKeyringChild") {
		t.Fatalf("child test: %v\n%s", err, out)
	}
}

// TestSecretStoreBusWithoutKeyringChild is the half of
// TestSecretStoreBusWithoutKeyring that runs on the private bus.
func TestSecretStoreBusWithoutKeyringChild(t *testing.T) {
	if os.Getenv("SPIRIT_TEST_PLAIN_BUS_CHILD") != "1" {
		t.Skip("runs only as the child of TestSecretStoreBusWithoutKeyring")
	}
	_, info, err := OpenSecretStore(SecretStoreConfig{FileDir: t.TempDir(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != StoreFile || !info.Fallback || strings.Contains(info.Reason, "\n") ||
		info.Reason != "no system keyring answered: secret-service: nothing answered for it; kwallet: nothing answered for it" {
		t.Fatalf("info = %+v", info)
	}
	_, _, err = OpenSecretStore(SecretStoreConfig{Getenv: envOf("SPIRIT_KEYRING_BACKEND", "secret-service"), FileDir: t.TempDir(), Timeout: 5 * time.Second})
	var ue *KeyringUnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("explicit secret-service: %v", err)
	}
}
