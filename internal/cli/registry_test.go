package cli

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/registry/registrytest"
)

// registryFactory returns a Factory for the registry commands whose data
// directory and HOME are inside a temporary folder.
func registryFactory(t *testing.T) (*Factory, func() (string, string)) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	dir := t.TempDir()
	env := map[string]string{"SPIRIT_AGENT_DATA_DIR": filepath.Join(dir, "data"), "HOME": filepath.Join(dir, "home")}
	f := &Factory{
		IO:         ios,
		Getenv:     func(k string) string { return env[k] },
		Now:        time.Now,
		HTTPClient: func() *http.Client { return &http.Client{} },
	}
	return f, func() (string, string) {
		s, e := out.String(), errOut.String()
		out.Reset()
		errOut.Reset()
		return s, e
	}
}

// fixtureRepo copies testdata/registry/<name>/repo into a temporary folder
// and serves its npm/ folder; it returns the root and the registry URL.
func fixtureRepo(t *testing.T, name string) (string, *registrytest.Server) {
	t.Helper()
	fx := filepath.Join("..", "..", "testdata", "registry", name)
	srv, err := registrytest.NewDirServer(filepath.Join(fx, "npm"), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	root := filepath.Join(t.TempDir(), "repo")
	err = filepath.WalkDir(filepath.Join(fx, "repo"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(fx, "repo"), p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(root, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root, srv
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestRegistryBuildUpstream(t *testing.T) {
	root, srv := fixtureRepo(t, "upstream-demo")
	f, outputs := registryFactory(t)
	want := filepath.Join("..", "..", "testdata", "registry", "upstream-demo", "want", "registry")

	if code := Run(t.Context(), f, []string{"registry", "build", "--root", root, "--npm-registry", srv.URL}); code != ExitOK {
		_, e := outputs()
		t.Fatalf("build exit %d: %s", code, e)
	}
	_, stderr := outputs()
	if !strings.Contains(stderr, "built 1 extension: 2 files written, 0 deleted") {
		t.Errorf("stderr = %q", stderr)
	}
	for _, rel := range []string{"catalog.json", "extensions/spiritagent.system-message-demo/detail.json"} {
		if got, w := readFile(t, filepath.Join(root, "registry", rel)), readFile(t, filepath.Join(want, rel)); got != w {
			t.Errorf("%s differs from upstream:\n%s", rel, got)
		}
	}

	// Up to date: --check exits 0, and the rebuild revalidates with a 304.
	before := srv.NotModified.Load()
	if code := Run(t.Context(), f, []string{"registry", "build", "--root", root, "--npm-registry", srv.URL, "--check"}); code != ExitOK {
		_, e := outputs()
		t.Fatalf("check exit %d: %s", code, e)
	}
	outputs()
	if srv.NotModified.Load() != before+1 {
		t.Errorf("the second fetch was not revalidated with a 304")
	}

	// A changed description upstream makes the index stale: exit 3 and a diff.
	pkg := "@spiritagent/extension-system-message-demo"
	doc := readFile(t, filepath.Join("..", "..", "testdata", "registry", "upstream-demo", "npm", pkg+".json"))
	srv.Set(pkg, []byte(strings.Replace(doc, `"description": "This is`, `"description": "Now this is`, 1)))
	code := Run(t.Context(), f, []string{"registry", "build", "--root", root, "--npm-registry", srv.URL, "--check"})
	stdout, stderr := outputs()
	if code != ExitProblems {
		t.Fatalf("check of a stale index: exit %d, want 3: %s", code, stderr)
	}
	for _, s := range []string{
		"--- a/registry/extensions/spiritagent.system-message-demo/detail.json\n",
		"+++ b/registry/catalog.json\n",
		"-      \"description\": \"This is an extension example for having the AI output the system message.\",\n",
		"+      \"description\": \"Now this is an extension example for having the AI output the system message.\",\n",
		"@@ -12,7 +12,7 @@\n",
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("diff lacks %q:\n%s", s, stdout)
		}
	}
	if !strings.Contains(stderr, "Error: 2 generated files out of date") {
		t.Errorf("stderr = %q", stderr)
	}
	if got, w := readFile(t, filepath.Join(root, "registry", "catalog.json")), readFile(t, filepath.Join(want, "catalog.json")); got != w {
		t.Error("--check wrote catalog.json")
	}

	// --json reports what was written.
	if code := Run(t.Context(), f, []string{"registry", "build", "--root", root, "--npm-registry", srv.URL, "--json"}); code != ExitOK {
		t.Fatalf("build --json exit %d", code)
	}
	stdout, _ = outputs()
	var res struct {
		Entries int      `json:"entries"`
		Written []string `json:"written"`
		Fetched int      `json:"fetched"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Entries != 1 || len(res.Written) != 2 || res.Fetched != 1 {
		t.Errorf("--json output %s (%v)", stdout, err)
	}
}

// TestRegistryBuildNPMFailures covers the npm rows of spec §6: every
// failing entry is reported with its file, exit 1, nothing written.
func TestRegistryBuildNPMFailures(t *testing.T) {
	root, srv := fixtureRepo(t, "fail-npm")
	f, outputs := registryFactory(t)
	code := Run(t.Context(), f, []string{"registry", "build", "--root", root, "--npm-registry", srv.URL, "-j", "3"})
	_, stderr := outputs()
	if code != ExitFailure {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, s := range []string{
		"Failed to fetch npm metadata for absent-pkg.\n",
		"b.version/entry.json: Version '1.0.0' was not found in npm metadata for @s/version-missing.\n",
		"c.nose/entry.json: Package no-spirit@1.0.0 is missing package.json spiritExtension metadata.\n",
		"d.blank/entry.json: Package blank-display@1.0.0 is missing spiritExtension.displayName.\n",
		"e.keywords/entry.json: Package kw-string@1.0.0: Cannot iterate over string (\"a, b\")\n",
		"Failed to fetch npm metadata for not-json.\n",
		"Error: registry build failed: npm metadata found 10 problems\n",
	} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
	if got := readFile(t, filepath.Join(root, "registry", "catalog.json")); got != "{\"old\": \"catalog stays\"}\n" {
		t.Errorf("catalog.json was touched: %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "registry", "extensions", "g.ok", "detail.json")); err == nil {
		t.Error("a detail was written although the build failed")
	}
}

// TestRegistryBuildSince: an entry unchanged since the revision keeps its
// detail without a fetch; a changed one is refetched.
func TestRegistryBuildSince(t *testing.T) {
	root, srv := fixtureRepo(t, "forms")
	f, outputs := registryFactory(t)
	if code := Run(t.Context(), f, []string{"registry", "build", "--root", root, "--npm-registry", srv.URL}); code != ExitOK {
		_, e := outputs()
		t.Fatalf("build: %s", e)
	}
	outputs()
	repo, err := git.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit("index", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(0, 0)}}); err != nil {
		t.Fatal(err)
	}
	// Change one entry's review status; nothing else.
	entry := filepath.Join(root, "registry", "extensions", "plain-ext", "entry.json")
	if err := os.WriteFile(entry, []byte(strings.Replace(readFile(t, entry), `"defaultReviewStatus": "unverified"`, `"defaultReviewStatus": "verified"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	requests := srv.Requests.Load()
	if code := Run(t.Context(), f, []string{"registry", "build", "--root", root, "--npm-registry", srv.URL, "--since", "HEAD", "--json"}); code != ExitOK {
		_, e := outputs()
		t.Fatalf("build --since: %s", e)
	}
	stdout, _ := outputs()
	var res struct{ Fetched, Reused int }
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Fetched != 1 || res.Reused != 3 {
		t.Errorf("fetched/reused = %+v (%v)", res, err)
	}
	if n := srv.Requests.Load() - requests; n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if !strings.Contains(readFile(t, filepath.Join(root, "registry", "catalog.json")), `"defaultReviewStatus": "verified",
      "detailPath": "extensions/plain.ext/detail.json"`) {
		t.Error("the changed entry was not rebuilt")
	}
	// The result equals a full build.
	if code := Run(t.Context(), f, []string{"registry", "build", "--root", root, "--npm-registry", srv.URL, "--check"}); code != ExitOK {
		s, e := outputs()
		t.Fatalf("full check after --since: %d\n%s%s", code, s, e)
	}
	outputs()
	if code := Run(t.Context(), f, []string{"registry", "build", "--root", root, "--npm-registry", srv.URL, "--since", "no-such-rev"}); code != ExitFailure {
		t.Errorf("unknown revision: exit %d", code)
	}
	if _, e := outputs(); !strings.Contains(e, `unknown revision "no-such-rev"`) {
		t.Errorf("stderr = %q", e)
	}
}

func TestRegistryAdd(t *testing.T) {
	root, srv := fixtureRepo(t, "upstream-demo")
	f, outputs := registryFactory(t)
	pkg := "@spiritagent/extension-system-message-demo"
	// The package is already listed.
	code := Run(t.Context(), f, []string{"registry", "add", pkg, "--id", "other.id", "--root", root, "--npm-registry", srv.URL})
	_, stderr := outputs()
	if code != ExitFailure || !strings.Contains(stderr, "entry already exists") || !strings.Contains(stderr, "Hint: ") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// A fresh repository gets an entry and a README that build then accepts.
	fresh := t.TempDir()
	if err := os.MkdirAll(filepath.Join(fresh, "registry", "extensions"), 0o755); err != nil {
		t.Fatal(err)
	}
	code = Run(t.Context(), f, []string{"registry", "add", pkg, "--id", "spiritagent.system-message-demo", "--root", fresh, "--npm-registry", srv.URL})
	_, stderr = outputs()
	if code != ExitOK {
		t.Fatalf("add exit %d: %s", code, stderr)
	}
	entry := readFile(t, filepath.Join(fresh, "registry", "extensions", "spiritagent.system-message-demo", "entry.json"))
	for _, s := range []string{`"defaultVersion": "0.1.0"`, `"defaultReviewStatus": "unverified"`, `"channel": "stable"`, `"featured": false`} {
		if !strings.Contains(entry, s) {
			t.Errorf("entry.json lacks %s:\n%s", s, entry)
		}
	}
	if readme := readFile(t, filepath.Join(fresh, "registry", "extensions", "spiritagent.system-message-demo", "README.md")); readme != "# System message demo\n" {
		t.Errorf("README.md = %q", readme)
	}
	if code := Run(t.Context(), f, []string{"registry", "build", "--root", fresh, "--npm-registry", srv.URL}); code != ExitOK {
		_, e := outputs()
		t.Fatalf("build after add: %s", e)
	}
	outputs()
	// Bad ids and versions not on npm.
	for _, tt := range []struct{ name, id, version, want string }{
		{"id pattern", "NoDot", "", "does not match"},
		{"version missing", "x.y", "9.9.9", "Version '9.9.9' was not found in npm metadata"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"registry", "add", pkg, "--id", tt.id, "--root", t.TempDir(), "--npm-registry", srv.URL}
			if tt.version != "" {
				args = append(args, "--version", tt.version)
			}
			code := Run(t.Context(), f, args)
			_, e := outputs()
			if code != ExitFailure || !strings.Contains(e, tt.want) {
				t.Errorf("exit %d: %s", code, e)
			}
		})
	}
}
