package npm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/npm/npmtest"
)

// TestE2EVerdaccio resolves and downloads packages that `npm publish` put
// into a real Verdaccio.
func TestE2EVerdaccio(t *testing.T) {
	v := npmtest.Start(t)
	v.Publish(t,
		npmtest.Package{Name: "e2e-plain", Version: "1.0.0"},
		npmtest.Package{Name: "e2e-plain", Version: "1.1.0"},
		npmtest.Package{Name: "e2e-plain", Version: "2.0.0"},
		npmtest.Package{Name: "e2e-plain", Version: "2.1.0-beta.1"},
		npmtest.Package{Name: "@e2e/scoped", Version: "0.1.0"},
		npmtest.Package{Name: "@e2e/scoped", Version: "0.2.0"},
		npmtest.Package{Name: npmtest.PrivateScope + "/secret", Version: "1.0.0"},
		npmtest.Package{Name: "e2e-tampered", Version: "1.0.0"},
	)
	v.DistTag(t, "e2e-plain@1.1.0", "stable")
	v.DistTag(t, "e2e-plain@1.1.0", "latest") // latest below the highest version

	home, work := t.TempDir(), t.TempDir()
	cache := t.TempDir()
	env := map[string]string{"NPM_TOKEN": v.Token}
	if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte(v.HostKey()+":_authToken=${NPM_TOKEN}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	newClient := func(t *testing.T, mod func(*npm.Config)) *npm.Client {
		cfg := npm.Config{Registry: v.URL, HomeDir: home, WorkDir: work, CacheDir: cache,
			Getenv: func(k string) string { return env[k] }}
		if mod != nil {
			mod(&cfg)
		}
		c, err := npm.NewClient(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := newClient(t, nil)
	ctx := context.Background()

	tests := []struct {
		name    string
		spec    string
		want    string
		wantErr error
	}{
		{name: "latest tag", spec: "npm:e2e-plain", want: "1.1.0"},
		{name: "range satisfied by latest", spec: "e2e-plain@^1.0.0", want: "1.1.0"},
		{name: "range above latest", spec: "e2e-plain@>=2", want: "2.0.0"},
		{name: "exact", spec: "e2e-plain@1.0.0", want: "1.0.0"},
		{name: "tag", spec: "e2e-plain@stable", want: "1.1.0"},
		{name: "prerelease tag", spec: "e2e-plain@next", want: "2.1.0-beta.1"},
		{name: "prerelease range", spec: "e2e-plain@^2.1.0-beta.0", want: "2.1.0-beta.1"},
		{name: "scoped", spec: "@e2e/scoped", want: "0.2.0"},
		{name: "scoped range", spec: "npm:@e2e/scoped@~0.1", want: "0.1.0"},
		{name: "token scope", spec: npmtest.PrivateScope + "/secret@1", want: "1.0.0"},
		{name: "no match", spec: "e2e-plain@^9", wantErr: npm.ErrNoMatchingVersion},
		{name: "missing", spec: "npm:e2e-missing", wantErr: npm.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp, err := npm.ParseSpec(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.Resolve(ctx, sp)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Version != tt.want || !strings.HasPrefix(r.TarballURL, v.URL) {
				t.Fatalf("Resolve(%s) = %+v, want %s", tt.spec, r, tt.want)
			}
			tb, err := c.FetchTarball(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			if tb.Integrity != r.Integrity {
				t.Errorf("integrity %s, Verdaccio says %s", tb.Integrity, r.Integrity)
			}
		})
	}

	t.Run("token scope without token", func(t *testing.T) {
		anon := newClient(t, func(c *npm.Config) { c.HomeDir = t.TempDir(); c.CacheDir = "" })
		_, err := anon.Resolve(ctx, npm.Spec{Name: npmtest.PrivateScope + "/secret"})
		if !errors.Is(err, npm.ErrUnauthorized) {
			t.Fatalf("err = %v, want ErrUnauthorized", err)
		}
	})

	t.Run("no match lists versions", func(t *testing.T) {
		_, err := c.Resolve(ctx, npm.Spec{Name: "e2e-plain", Range: "^9"})
		if err == nil || !strings.Contains(err.Error(), "1.0.0, 1.1.0, 2.0.0, 2.1.0-beta.1") {
			t.Fatalf("err = %v", err)
		}
	})

	t.Run("tampered tarball", func(t *testing.T) {
		fresh := newClient(t, func(c *npm.Config) { c.CacheDir = t.TempDir() })
		r, err := fresh.Resolve(ctx, npm.Spec{Name: "e2e-tampered"})
		if err != nil {
			t.Fatal(err)
		}
		other, err := os.ReadFile(v.StoredTarball("e2e-plain", "1.0.0"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(v.StoredTarball("e2e-tampered", "1.0.0"), other, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := fresh.FetchTarball(ctx, r); !errors.Is(err, npm.ErrIntegrity) {
			t.Fatalf("err = %v, want ErrIntegrity", err)
		}
	})

	t.Run("offline from the cache", func(t *testing.T) {
		off := newClient(t, func(c *npm.Config) { c.Offline = true; c.Registry = "http://127.0.0.1:1/" })
		// Another registry URL is another cache key: offline finds nothing.
		if _, err := off.Resolve(ctx, npm.Spec{Name: "e2e-plain"}); !errors.Is(err, npm.ErrOffline) {
			t.Fatalf("err = %v, want ErrOffline", err)
		}
		off = newClient(t, func(c *npm.Config) { c.Offline = true })
		r, err := off.Resolve(ctx, npm.Spec{Name: "@e2e/scoped", Range: "^0.2"})
		if err != nil {
			t.Fatal(err)
		}
		tb, err := off.FetchTarball(ctx, r)
		if err != nil || !tb.Cached {
			t.Fatalf("offline fetch: %+v, %v", tb, err)
		}
	})

	t.Run("full packument", func(t *testing.T) {
		for i := 0; i < 2; i++ { // the second is an If-None-Match revalidation
			doc, err := c.FullPackument(ctx, "e2e-plain")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(doc), `"time"`) || !strings.Contains(string(doc), `"description"`) {
				t.Fatalf("not a full packument: %.300s", doc)
			}
		}
	})
}
