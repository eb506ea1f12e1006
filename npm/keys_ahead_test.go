package npm

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// On a cold cache, the keys endpoint is asked while the packument
// downloads, not after it: this registry answers the packument only once
// the keys request has arrived (or fails it after a while).
func TestResolveAsksKeysWhilePackumentDownloads(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("ahead", map[string]string{"latest": "1.0.0"}, "1.0.0")
	arrived := make(chan struct{})
	once := sync.OnceFunc(func() { close(arrived) })
	serve := reg.srv.Config.Handler
	reg.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasSuffix(req.URL.Path, "/-/npm/v1/keys") {
			once()
		} else if !strings.Contains(req.URL.Path, "/-/") {
			select {
			case <-arrived:
			case <-time.After(5 * time.Second):
				http.Error(w, "the keys were not asked for meanwhile", http.StatusBadRequest)
				return
			}
		}
		serve.ServeHTTP(w, req)
	})
	c := newTestClient(t, reg, t.TempDir(), nil)
	r, err := c.Resolve(context.Background(), mustSpec(t, "npm:ahead"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != "1.0.0" || r.Signature.Status != SignatureNoKeys {
		t.Errorf("resolved %s, signature %q", r.Version, r.Signature.Status)
	}
}

// The keys asked ahead are only cached once the package resolved, as
// before: a package the registry does not have leaves no keys record,
// and a resolved one leaves the record of the registry's answer.
func TestKeysAheadCachedOnlyWhenUsed(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("there", map[string]string{"latest": "1.0.0"}, "1.0.0")
	cache := t.TempDir()
	c := newTestClient(t, reg, cache, nil)
	keysFile := c.keysPath(reg.url())
	if _, err := c.Resolve(context.Background(), mustSpec(t, "npm:missing")); err == nil {
		t.Fatal("resolved a package the registry does not have")
	}
	if _, err := os.Stat(keysFile); !os.IsNotExist(err) {
		t.Fatalf("keys record after a failed resolve: %v", err)
	}
	if _, err := c.Resolve(context.Background(), mustSpec(t, "npm:there")); err != nil {
		t.Fatal(err)
	}
	rec, ok := c.cachedKeys(reg.url())
	if !ok || rec.Body != nil || rec.Registry != Redact(reg.url()) {
		t.Fatalf("keys record %+v, %v (in %s)", rec, ok, filepath.Dir(keysFile))
	}
}
