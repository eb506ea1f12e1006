package npm

import (
	"context"
	"os"
	"reflect"
	"testing"
)

// TestExactVersionFromCache: an exact version whose packument and tarball
// are in the cache resolves and fetches with no request at all; a range
// still asks the registry (a new version may match it).
func TestExactVersionFromCache(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("p", map[string]string{"latest": "1.0.0"}, "1.0.0")
	cache := t.TempDir()
	warm := newTestClient(t, reg, cache, nil)
	r, err := warm.Resolve(context.Background(), mustSpec(t, "npm:p@1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := warm.FetchTarball(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	before := len(reg.reqs())

	c := newTestClient(t, reg, cache, nil)
	r2, err := c.Resolve(context.Background(), mustSpec(t, "npm:p@1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r2, r) {
		t.Errorf("from the cache: %+v, want %+v", r2, r)
	}
	tb, err := c.FetchTarballLazy(context.Background(), r2)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(reg.reqs()) - before; n != 0 {
		t.Errorf("%d requests for an exact cached version: %q", n, reg.reqs()[before:])
	}
	data, err := os.ReadFile(tb.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !tb.Cached || !tb.Unverified || tb.Integrity != sri("sha512", data) {
		t.Errorf("lazy cached tarball %+v", tb)
	}

	if _, err := c.Resolve(context.Background(), mustSpec(t, "npm:p@^1.0.0")); err != nil {
		t.Fatal(err)
	}
	if n := len(reg.reqs()) - before; n != 1 {
		t.Errorf("%d requests for a range, want 1 (revalidation)", n)
	}
	// Without the tarball in the cache, the exact version is asked for.
	if err := os.Remove(tb.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Resolve(context.Background(), mustSpec(t, "npm:p@1.0.0")); err != nil {
		t.Fatal(err)
	}
	if n := len(reg.reqs()) - before; n != 2 {
		t.Errorf("%d requests after the tarball left the cache, want 2", n)
	}
}
