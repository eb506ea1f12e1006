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
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/paths"
)

// TestUpdaterPlansAndApplies drives an update from Go, without the
// command line: fixture.hello 1.0.0, installed from the fixture index, is
// planned for 1.1.0, which adds capabilities, tools, an activation event
// and a secret slot; a refusal at Ask leaves 1.0.0, an accept installs
// 1.1.0 and records the new capabilities as granted.
func TestUpdaterPlansAndApplies(t *testing.T) {
	ctx := context.Background()
	p, c := fixtureHost(t)
	in := &install.Installer{Paths: p}
	installFromIndex(t, c, in, "1.0.0")

	u := &catalog.Updater{Paths: p, Catalog: c, Installer: in,
		NPM: &catalog.NPMClients{New: func(string) (*npm.Client, error) { return nil, errors.New("no npm installs here") }}}
	o, err := u.Statuses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	u.CheckSources(ctx, o)
	plan := u.PlanAll(o)
	if len(plan.Marketplace) != 1 || len(plan.NPM) != 0 || plan.Marketplace[0].ID != "@fixture/hello" || plan.Marketplace[0].Latest != "1.1.0" {
		t.Fatalf("plan = %+v", plan)
	}

	var asked []catalog.Question
	refuse := func(q catalog.Question) error {
		asked = append(asked, q)
		return fmt.Errorf("%w: test says no", catalog.ErrNotConsented)
	}
	res := u.Apply(ctx, plan, o, refuse, nil)
	if len(res) != 1 || res[0].Status != catalog.UpdateRefused || !errors.Is(res[0].Err, catalog.ErrNotConsented) {
		t.Fatalf("refused update: %+v", res)
	}
	if len(asked) != 1 || asked[0].From != "1.0.0" || asked[0].To != "1.1.0" || asked[0].MajorChange ||
		!slices.Equal(asked[0].Adds.Tools, []string{"greet"}) || !slices.Contains(asked[0].Adds.Capabilities, "tool-execution") {
		t.Fatalf("questions = %+v", asked)
	}
	if got, err := install.Find(p, "@fixture/hello"); err != nil || got.Version() != "1.0.0" {
		t.Fatalf("after a refusal: %v, %v", got, err)
	}

	// Check sees the new version's manifest; its refusal changes nothing.
	var checked []string
	u.Check = func(m *manifest.Manifest) error {
		checked = append(checked, m.ID+"@"+m.Version)
		return errors.New("test refuses the manifest")
	}
	res = u.Apply(ctx, plan, o, func(catalog.Question) error { return nil }, nil)
	if len(res) != 1 || res[0].Status != catalog.UpdateFailed || !slices.Equal(checked, []string{"@fixture/hello@1.1.0"}) {
		t.Fatalf("update refused by Check: %+v (checked %v)", res, checked)
	}
	if got, err := install.Find(p, "@fixture/hello"); err != nil || got.Version() != "1.0.0" {
		t.Fatalf("after Check refused: %v, %v", got, err)
	}
	u.Check = nil

	var reported []catalog.UpdateResult
	res = u.Apply(ctx, plan, o, func(catalog.Question) error { return nil }, func(r catalog.UpdateResult) { reported = append(reported, r) })
	if len(res) != 1 || res[0].Status != catalog.UpdateDone || res[0].Rollback != "1.0.0" || len(reported) != 1 {
		t.Fatalf("accepted update: %+v (reported %d)", res, len(reported))
	}
	if !slices.Contains(res[0].Granted, "secret-storage") {
		t.Errorf("granted = %v, want the new capabilities", res[0].Granted)
	}
	got, err := install.Find(p, "@fixture/hello")
	if err != nil || got.Version() != "1.1.0" || got.Record.MarketplaceID != "fixture.hello" || got.Record.Channel != "stable" {
		t.Fatalf("after the update: %+v, %v", got, err)
	}
}

// TestPlanAddSkipsAndRefuses: a folder install named to update is skipped
// with the reason, and an id that is no install is a *NotUpdatableError.
func TestPlanAddSkipsAndRefuses(t *testing.T) {
	ctx := context.Background()
	root, err := filepath.Abs("../testdata/catalog/registry")
	if err != nil {
		t.Fatal(err)
	}
	p := paths.New(tempdir.New(t), paths.HostCLI)
	hello, err := filepath.Abs("../testdata/examples/hello-tools")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&install.Installer{Paths: p}).Install(ctx, install.Request{Path: hello, Source: hello, SourceKind: install.KindDir}); err != nil {
		t.Fatal(err)
	}
	c, err := catalog.New(catalog.Options{Source: root, CacheDir: p.CacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	u := &catalog.Updater{Paths: p, Catalog: c}
	o, err := u.Statuses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	u.CheckSources(ctx, o)
	if len(o.Sources) != 1 {
		t.Fatalf("sources = %+v", o.Sources)
	}
	plan := &catalog.Plan{}
	skip, err := plan.Add(o, o.Sources[0].ID)
	if err != nil || skip == nil || skip.Status != catalog.UpdateSkipped || skip.Kind != catalog.SourceLocal {
		t.Fatalf("Add of a folder install = %+v, %v", skip, err)
	}
	var nu *catalog.NotUpdatableError
	if _, err := plan.Add(o, "nobody"); !errors.As(err, &nu) || nu.ID != "nobody" {
		t.Fatalf("Add of no install = %v", err)
	}
}
