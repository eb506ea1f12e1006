package catalog

import (
	"context"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// gitRegistry makes a real git repository holding the fixture registry
// under registry/ (as the official repository does), committed with
// go-git, and serves it over the smart HTTP protocol with the system's
// `git http-backend`. It returns the git+http source and a request counter.
func gitRegistry(t *testing.T) (string, *httptest.Server, *atomic.Int64) {
	t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("these tests need git (for git http-backend):", err)
	}
	projects := tempdir.New(t)
	work := filepath.Join(projects, "registry.git")
	writeFixtureRegistry(t, filepath.Join(work, "registry"))
	commitAll(t, work)
	if err := os.WriteFile(filepath.Join(work, ".git", "git-daemon-export-ok"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	backend := &cgi.Handler{
		Path: gitBin,
		Args: []string{"http-backend"},
		Env:  []string{"GIT_PROJECT_ROOT=" + projects, "GIT_HTTP_EXPORT_ALL=1"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return "git+" + srv.URL + "/registry.git", srv, &hits
}

// commitAll makes work a git repository (with go-git) holding one commit
// of every file in it, symbolic links as links.
func commitAll(t *testing.T, work string) {
	t.Helper()
	repo, err := git.PlainInit(work, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "Fixture", Email: "fixture@example.com", When: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := wt.Commit("registry", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
}

func TestGitRegistry(t *testing.T) {
	src, srv, hits := gitRegistry(t)
	cache := tempdir.New(t)
	ctx := context.Background()
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	opts := func(o *Options) { o.MaxAge = 10 * time.Minute; o.Now = now }

	c := newClient(t, src, cache, opts)
	cat, err := c.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Items) != len(fixtureExtensions()) || len(cat.Warnings) != 1 {
		t.Fatalf("%d items, warnings %v", len(cat.Items), cat.Warnings)
	}
	text, _, err := c.Readme(ctx, "fixture.hello")
	if err != nil || !strings.HasPrefix(text, "# Hello") {
		t.Fatalf("readme %q %v", text, err)
	}
	p, err := c.Prepare(ctx, "fixture.hello", Selector{Channel: "stable"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check("cli", Consent{}); err != nil {
		t.Fatal(err)
	}
	tb, err := c.Tarball(ctx, p, false)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := PackageManifest(tb.Path); err != nil || m.Version != "1.1.0" {
		t.Fatalf("manifest %v %v", m, err)
	}
	first := hits.Load()
	if first == 0 {
		t.Fatal("no request reached git http-backend")
	}

	// Within --max-age the clone is used as it is.
	clock = clock.Add(5 * time.Minute)
	if _, err := newClient(t, src, cache, opts).Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != first {
		t.Fatalf("fresh clone fetched again: %d → %d", first, hits.Load())
	}

	// Older than --max-age: cloned again.
	clock = clock.Add(10 * time.Minute)
	cat2, err := newClient(t, src, cache, opts).Catalog(ctx)
	if err != nil || cat2.Origin.FromCache {
		t.Fatalf("refetch: %+v %v", cat2, err)
	}
	if hits.Load() == first {
		t.Fatal("stale clone not fetched again")
	}

	// The server is gone: the old clone is used, and its age said.
	srv.Close()
	clock = clock.Add(time.Hour)
	cat3, err := newClient(t, src, cache, opts).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !cat3.Origin.Stale || !strings.Contains(cat3.Warnings[0].Message, "cached copy from 1h0m0s ago") {
		t.Fatalf("offline clone: %+v %v", cat3.Origin, cat3.Warnings)
	}

	// No clone at all and no server: a clear error.
	if _, err := newClient(t, src, tempdir.New(t), opts).Catalog(ctx); err == nil || !strings.Contains(err.Error(), "cloning registry") {
		t.Fatalf("no clone: %v", err)
	}
}
