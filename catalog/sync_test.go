package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/paths"
)

// fixtureHost is a CLI host in a new data directory and a client of the
// fixture index that caches there.
func fixtureHost(t *testing.T) (*paths.Paths, *catalog.Client) {
	t.Helper()
	root, err := filepath.Abs("../testdata/catalog/registry")
	if err != nil {
		t.Fatal(err)
	}
	p := paths.New(tempdir.New(t), paths.HostCLI)
	c, err := catalog.New(catalog.Options{Source: root, CacheDir: p.CacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	return p, c
}

// installFromIndex installs version of fixture.hello from c into in.
func installFromIndex(t *testing.T, c *catalog.Client, in *install.Installer, version string) {
	t.Helper()
	ctx := context.Background()
	prep, err := c.Prepare(ctx, "fixture.hello", catalog.Selector{Version: version})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := c.Tarball(ctx, prep, false)
	if err != nil {
		t.Fatal(err)
	}
	r := &install.Resolver{Marketplace: func(context.Context, install.MarketplaceRef) (*install.Artifact, error) {
		return c.Artifact(prep, tb), nil
	}}
	art, err := r.ResolveMarketplace(ctx, install.MarketplaceRef{ID: "fixture.hello", Version: version})
	if err != nil {
		t.Fatal(err)
	}
	defer art.Close()
	if _, err := in.Install(ctx, art.Request(false, false)); err != nil {
		t.Fatal(err)
	}
}

// TestSyncerPlansAndApplies drives a sync from Go, without the command
// line: a lock written where fixture.hello 1.1.0 (from the fixture index)
// and a folder install are installed is synced onto a host that has
// fixture.hello 1.0.0 only. The plan says the folder install is missing
// and fixture.hello differs; 1.1.0 adds tools and capabilities, so a
// refusal at Ask keeps 1.0.0 (the missing one is installed, it replaces
// nothing), an accept installs 1.1.0, and the host then matches the lock.
func TestSyncerPlansAndApplies(t *testing.T) {
	ctx := context.Background()
	hello, err := filepath.Abs("../testdata/examples/hello-tools")
	if err != nil {
		t.Fatal(err)
	}

	// The machine the lock is written on.
	src, srcCat := fixtureHost(t)
	srcIn := &install.Installer{Paths: src}
	installFromIndex(t, srcCat, srcIn, "1.1.0")
	dirRes, err := srcIn.Install(ctx, install.Request{Path: hello, Source: hello, SourceKind: install.KindDir})
	if err != nil {
		t.Fatal(err)
	}
	lock, skipped, err := install.BuildLock(src)
	if err != nil || len(skipped) != 0 || len(lock.Extensions) != 2 {
		t.Fatalf("BuildLock = %+v, %v, %v", lock, skipped, err)
	}
	folder := dirRes.ID

	// The machine synced.
	p, c := fixtureHost(t)
	in := &install.Installer{Paths: p}
	installFromIndex(t, c, in, "1.0.0")
	s := &catalog.Syncer{Paths: p, Installer: in, Catalog: func() (*catalog.Client, error) { return c, nil }}

	other := *lock
	other.Host = "nobody"
	var he *catalog.LockHostError
	if _, err := s.Plan(&other, false); !errors.As(err, &he) || he.Lock != "nobody" {
		t.Fatalf("Plan of another host's lock = %v", err)
	}

	plan, err := s.Plan(lock, false)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, d := range plan.Drift {
		kinds[d.ID] = d.Kind
	}
	if len(plan.Drift) != 2 || kinds["@fixture/hello"] != "differs" || kinds[folder] != "missing" {
		t.Fatalf("plan = %+v", plan.Drift)
	}
	for _, d := range plan.Drift {
		if d.Kind != "differs" {
			continue
		}
		adds, err := s.Adds(ctx, plan, d)
		if err != nil || !slices.Equal(adds.Tools, []string{"greet"}) {
			t.Fatalf("Adds(%s) = %+v, %v", d.ID, adds, err)
		}
	}
	if got, _ := install.Find(p, "@fixture/hello"); got == nil || got.Version() != "1.0.0" {
		t.Fatalf("Adds changed the install: %+v", got)
	}

	var asked []catalog.Question
	refuse := func(q catalog.Question) error {
		asked = append(asked, q)
		return fmt.Errorf("%w: test says no", catalog.ErrNotConsented)
	}
	var reported []catalog.SyncResult
	res := s.Apply(ctx, plan, refuse, func(r catalog.SyncResult) { reported = append(reported, r) })
	if len(res) != 2 || len(reported) != 2 {
		t.Fatalf("refused sync: %+v (reported %d)", res, len(reported))
	}
	for _, r := range res {
		switch r.Kind {
		case "differs":
			if !errors.Is(r.Err, catalog.ErrNotConsented) || r.Result != nil {
				t.Errorf("refused replacement: %+v", r)
			}
		case "missing":
			if r.Err != nil || r.Result == nil {
				t.Errorf("missing install: %+v", r)
			}
		}
	}
	if len(asked) != 1 || asked[0].ID != "@fixture/hello" || asked[0].From != "1.0.0" || asked[0].To != "1.1.0" ||
		!slices.Contains(asked[0].Adds.Capabilities, "tool-execution") {
		t.Fatalf("questions = %+v", asked)
	}
	if got, err := install.Find(p, "@fixture/hello"); err != nil || got.Version() != "1.0.0" {
		t.Fatalf("after a refusal: %+v, %v", got, err)
	}

	plan, err = s.Plan(lock, false)
	if err != nil || len(plan.Drift) != 1 || plan.Drift[0].Kind != "differs" {
		t.Fatalf("plan after a refusal = %+v, %v", plan, err)
	}
	res = s.Apply(ctx, plan, func(catalog.Question) error { return nil }, nil)
	if len(res) != 1 || res[0].Err != nil || res[0].Result == nil || res[0].Result.Previous != "1.0.0" {
		t.Fatalf("accepted sync: %+v", res)
	}
	got, err := install.Find(p, "@fixture/hello")
	if err != nil || got.Version() != "1.1.0" || got.Record.MarketplaceID != "fixture.hello" ||
		got.Record.Integrity != lock.Extensions["@fixture/hello"].Integrity {
		t.Fatalf("after the sync: %+v, %v", got, err)
	}
	if plan, err = s.Plan(lock, false); err != nil || len(plan.Drift) != 0 {
		t.Fatalf("plan after the sync = %+v, %v", plan, err)
	}
}
