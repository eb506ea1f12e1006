//go:build unix

package exthost

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/keyring"
)

// TestSecretServiceKeyring stores, reads and deletes a secret through a real
// Secret Service: a private D-Bus session bus and gnome-keyring-daemon
// (Debian packages dbus and gnome-keyring), both started here and stopped by
// their own PIDs. It is skipped, and says so, where they are not installed.
func TestSecretServiceKeyring(t *testing.T) {
	for _, bin := range []string{"dbus-daemon", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed (apt-get install dbus gnome-keyring)", bin)
		}
	}
	dir := t.TempDir()
	runDir := filepath.Join(dir, "run")
	if err := os.Mkdir(runDir, 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+dir, "XDG_RUNTIME_DIR="+runDir, "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	bus := exec.Command("dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1")
	bus.Env = env
	out, err := bus.Output()
	if err != nil {
		t.Fatalf("dbus-daemon: %v", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != 2 {
		t.Fatalf("dbus-daemon printed %q", out)
	}
	addr := lines[0]
	busPID, err := strconv.Atoi(lines[1])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(busPID, syscall.SIGTERM) })
	env = append(env, "DBUS_SESSION_BUS_ADDRESS="+addr)

	gk := exec.Command("gnome-keyring-daemon", "--unlock", "--components=secrets", "--foreground")
	gk.Env = env
	gk.Stdin = strings.NewReader("test-password")
	if err := gk.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = gk.Process.Signal(syscall.SIGTERM)
		_ = gk.Wait()
	})
	// The D-Bus library keeps one session bus connection per process, so
	// the checks run in a child test process that starts with the bus
	// address in its environment.
	child := exec.Command(os.Args[0], "-test.run=^TestSecretServiceChild$", "-test.v")
	child.Env = append(env, "SPIRIT_TEST_SECRET_SERVICE_CHILD=1")
	out, err = child.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestSecretServiceChild") {
		t.Fatalf("child test: %v\n%s", err, out)
	}
}

// TestSecretServiceChild is the half of TestSecretServiceKeyring that runs
// inside the bus session; on its own it does nothing.
func TestSecretServiceChild(t *testing.T) {
	if os.Getenv("SPIRIT_TEST_SECRET_SERVICE_CHILD") != "1" {
		t.Skip("runs only as the child of TestSecretServiceKeyring")
	}
	// Without SPIRIT_KEYRING_BACKEND the system keyring is chosen, once it
	// answers: the daemon needs a moment to take its bus name.
	var store SecretStore
	var info SecretStoreInfo
	deadline := time.Now().Add(10 * time.Second)
	for {
		var err error
		store, info, err = OpenSecretStore(SecretStoreConfig{FileDir: t.TempDir(), Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if info.Kind == StoreSystem || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if info.Kind != StoreSystem || info.Backend != "secret-service" || info.Fallback {
		t.Fatalf("store = %+v, want the Secret Service", info)
	}
	p := installFixtures(t, "kitchen")
	h := newTestHost(t, p, func(o *Options) {
		o.Secrets = NewSecrets(func() (SecretStore, error) { return store, nil })
	})
	ext, err := h.Extension("@fixture/kitchen")
	if err != nil {
		t.Fatal(err)
	}
	m := ext.Manifest
	// The daemon takes its bus name before it has made the login
	// collection that the default alias names; until then a write fails
	// with "Object does not exist at path /". Wait for it, bounded.
	for {
		err = h.Secrets().Set(m, "api-key", " ss-value-123 ")
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "Object does not exist") || time.Now().After(deadline) {
			t.Fatalf("set: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Read it back straight from the keyring under the desktop app's account name.
	ring, err := keyring.Open(keyring.Config{ServiceName: KeyringService, LibSecretCollectionName: "login",
		AllowedBackends: []keyring.BackendType{keyring.SecretServiceBackend}})
	if err != nil {
		t.Fatal(err)
	}
	item, err := ring.Get("extension::@fixture/kitchen::secret::api-key")
	if err != nil || string(item.Data) != "ss-value-123" {
		t.Fatalf("keyring item = %q, %v", item.Data, err)
	}
	got, err := call(t, h, "@fixture/kitchen/secret", `{"op":"has","key":"api-key"}`)
	if err != nil || got != "true" {
		t.Fatalf("has from the extension = %q, %v", got, err)
	}
	if err := h.Secrets().Delete(m, "api-key"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := h.Secrets().Get(m, "api-key"); ok || err != nil {
		t.Fatalf("after delete: %v %v", ok, err)
	}
}
