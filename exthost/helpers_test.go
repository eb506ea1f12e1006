package exthost

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/testutil/fixture"
	"github.com/spiritagents/spirit/paths"
)

// installFixtures copies testdata/runtime/<name> dirs into a fresh data
// dir as extensions/cli/pkg-<b64url(id)>, the layout install.List reads.
func installFixtures(t testing.TB, names ...string) *paths.Paths {
	t.Helper()
	p := paths.New(t.TempDir(), paths.HostCLI)
	for _, n := range names {
		copyFixture(t, p, n)
	}
	return p
}

func copyFixture(t testing.TB, p *paths.Paths, name string) string {
	t.Helper()
	return fixture.Install(t, p, filepath.Join("..", "testdata", "runtime", name))
}

// fileSecrets is a Secrets over the encrypted file keyring in a temp dir.
func fileSecrets(t testing.TB) *Secrets {
	dir := t.TempDir()
	return NewSecrets(func() (SecretStore, error) {
		store, _, err := OpenSecretStore(SecretStoreConfig{
			Getenv: func(k string) string {
				switch k {
				case "SPIRIT_KEYRING_BACKEND":
					return "file"
				case "SPIRIT_KEYRING_PASSWORD":
					return "test-password"
				}
				return ""
			},
			FileDir: dir,
		})
		return store, err
	})
}

// newTestHost returns a Host over p with short timeouts, closed at the end.
func newTestHost(t testing.TB, p *paths.Paths, mod func(*Options)) *Host {
	t.Helper()
	opts := Options{
		Paths:           p,
		Secrets:         fileSecrets(t),
		Environ:         append(os.Environ(), "MY_API_TOKEN=tok-123456", "SPIRIT_TEST_PLAIN=visible"),
		ExtraEnv:        func(string) []string { return []string{"SPIRIT_TEST_PLAIN", "SPIRIT_TEST_DISPOSE_MARKER"} },
		ActivateTimeout: 5 * time.Second,
		CallTimeout:     5 * time.Second,
		DisposeTimeout:  time.Second,
		KillGrace:       time.Second,
	}
	if mod != nil {
		mod(&opts)
	}
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}
