package install_test

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/install/internal/corpus"
	"github.com/spiritagents/spirit/npm"
)

// lazyClient hands over a "cached" tarball unread, as npm.Client's
// FetchTarballLazy does, with the integrity the registry published.
type lazyClient struct {
	path, integrity string
	eager           int
}

func (c *lazyClient) Resolve(_ context.Context, s npm.Spec) (*npm.Resolved, error) {
	return &npm.Resolved{Name: s.Name, Version: "1.0.0", TarballURL: "https://registry.invalid/p.tgz", Integrity: c.integrity}, nil
}

func (c *lazyClient) FetchTarball(context.Context, *npm.Resolved) (*npm.Tarball, error) {
	c.eager++
	return nil, errors.New("the install must not ask for a verified copy")
}

func (c *lazyClient) FetchTarballLazy(context.Context, *npm.Resolved) (*npm.Tarball, error) {
	return &npm.Tarball{Path: c.path, Integrity: c.integrity, Cached: true, Unverified: true}, nil
}

// TestUnverifiedCacheHashedOnce: a cached tarball that nothing read
// before the install is checked while it is unpacked; when its bytes
// differ from the digest (or are not a tarball at all) the install fails
// with nothing installed and the cache file is removed, so that the next
// install downloads it again; a good one is installed and kept.
func TestUnverifiedCacheHashedOnce(t *testing.T) {
	good := corpus.Tgz(corpus.Package("package/", corpus.ID, "1.0.0", 2))
	other := corpus.Tgz(corpus.Package("package/", corpus.ID, "1.0.0", 3))
	sum := sha512.Sum512(good)
	integrity := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	for _, c := range []struct {
		name string
		data []byte
		err  error
	}{
		{"good", good, nil},
		{"other bytes", other, install.ErrIntegrity},
		{"truncated", good[:len(good)/2], install.ErrSizeMismatch},
		{"garbage", []byte("not a tarball"), install.ErrCorrupt},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, root := newInstaller(t)
			cached := filepath.Join(root, "cache.tgz")
			if err := os.WriteFile(cached, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			client := &lazyClient{path: cached, integrity: integrity}
			r := &install.Resolver{NPM: func() (install.NPMClient, error) { return client, nil }}
			art, err := r.Resolve(context.Background(), "npm:"+corpus.ID+"@1.0.0")
			if err != nil {
				t.Fatal(err)
			}
			defer art.Close()
			_, err = in.Install(context.Background(), art.Request(false, false))
			_, statErr := os.Stat(cached)
			if c.err == nil {
				if err != nil || statErr != nil {
					t.Fatalf("install: %v; cache file: %v", err, statErr)
				}
			} else {
				if !errors.Is(err, c.err) {
					t.Fatalf("install: %v, want %v", err, c.err)
				}
				if !errors.Is(statErr, os.ErrNotExist) {
					t.Errorf("the cache file that failed is still there (%v)", statErr)
				}
				if list, _ := os.ReadDir(in.Paths.PackageDir(corpus.ID)); len(list) != 0 {
					t.Errorf("something was installed: %v", list)
				}
			}
			if client.eager != 0 {
				t.Errorf("FetchTarball was called %d times", client.eager)
			}
		})
	}
}
