package npm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/spiritagents/spirit/npm/npmtest"
)

// nodeSemverVersion is the npm semver package the ranges are compared with.
const nodeSemverVersion = "7.7.2"

// nodeSemver installs npm's semver package from the npm registry (once,
// into <repo>/.cache/node-semver) and returns the path to require. It
// fails the test when node or npm are missing: it never skips.
func nodeSemver(t *testing.T) string {
	t.Helper()
	home := filepath.Join(npmtest.RepoRoot(), ".cache", "node-semver")
	pkg := filepath.Join(home, "node_modules", "semver")
	if b, err := os.ReadFile(filepath.Join(pkg, "package.json")); err == nil && strings.Contains(string(b), `"version": "`+nodeSemverVersion+`"`) {
		return pkg
	}
	if err := os.MkdirAll(filepath.Dir(home), 0o755); err != nil {
		t.Fatal(err)
	}
	stage, err := os.MkdirTemp(filepath.Dir(home), "node-semver-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(stage)
	if err := os.WriteFile(filepath.Join(stage, "package.json"), []byte(`{"name":"spirit-node-semver","private":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", "semver@"+nodeSemverVersion)
	cmd.Dir = stage
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install semver@%s: %v\n%s", nodeSemverVersion, err, out)
	}
	_ = os.RemoveAll(home)
	if err := os.Rename(stage, home); err != nil && !errors.Is(err, os.ErrExist) {
		t.Fatal(err)
	}
	return pkg
}

// rangeCorpus is the ranges of the differential test: comparators, hyphen
// ranges, x-ranges, tilde and caret with prereleases, "||", whitespace and
// input npm refuses, each also combined with others.
func rangeCorpus() []string {
	parts := []string{"1", "1.2", "1.2.3", "1.2.3-beta.1", "1.2.3-0", "0.2.3", "0.0.3", "0.0.3-rc.1", "0.2", "0",
		"x", "X", "*", "1.x", "1.2.x", "1.*", "1.2.*", "x.x.x", "v1.2.3", "=1.2.3", "01.2.3", "1.02.3", "1.2.3+build.5",
		"1.2.3-alpha.1+b", "2.0.0-rc.1", "1.2.3-", "1.2.3.4", "1.2.3-01", "1.2.3-a..b", "9007199254740991", "9007199254740992.0.0"}
	ops := []string{"", "=", ">", ">=", "<", "<=", "~", "~>", "^", ">= ", "< ", "^ ", "~ ", "~> ", "= ", "v", "=v", ">=v"}
	var out []string
	for _, op := range ops {
		for _, p := range parts {
			out = append(out, op+p)
		}
	}
	pairs := [][2]string{{"1.2.3", "2.3.4"}, {"1.2", "2"}, {"1.x", "2.x"}, {"*", "1.2.3"}, {"1.2.3-beta.1", "1.2.3"},
		{"0.0.1", "0.0.1-rc"}, {"^1.2.3", "~1.2.3"}, {">=1.0.0", "<2.0.0"}, {"x", "1"}, {">1.2.3", "<1.0.0"}, {"<0.0.0-0", "1"}}
	for _, p := range pairs {
		for _, sep := range []string{" ", "  ", " - ", "-", " -  ", "\t-\t", "||", " || ", " ||", ",", " , ", "\u00a0", " \u3000 "} {
			out = append(out, p[0]+sep+p[1])
		}
	}
	out = append(out,
		"", " ", "\t", "||", "|| 1.2.3", "1.2.3 ||", "1.2.3 || || 2", "1.2.3,1.2.4", "foo", "latest", ">=1.2.3 <", "1.2.3 -",
		"- 1.2.3", "1.2.3 - 2.3.4 - 5", "1 2", "^1.2.3 ~2", ">= 1.2.3 < 2", ">=1.2.3<2", "> = 1.2.3", "=>1.2.3",
		"1.2.3 - x", "x - 1.2.3", "1.x - 2.x", "1.2.3-beta - 1.2.4-beta", "1.2 - 1.2.3-rc", ">=0.0.0", ">=0.0.0-0",
		"<1.2.3-0", "<=1.2", ">1.2", "<1", ">1", "<x", ">x", "<=x", ">=x", "~1", "~0", "^0", "^0.0", "^0.x", "~>1.2",
		"^1.2.3-beta.2 || ~2.0.0-rc.1", ">1.2.3-alpha.3 <1.2.4", "1.2.3 >= 1.0.0", " \t1.2.3\n ", "^ 1.2.3 || ^ 2", "~ 1.2",
		"1.2.3 - 2.3.4 || 3.x", "*|| 1.2.3", "1.2.3-x.7.z.92", "^9007199254740991.0.0", "~1.9007199254740991", "1.2.3\u00a0", "\ufeff1.2.3",
		"1.2.3\u200b", ">=1.2.3 || <0.0.0-0", "<0.0.0-0 || <0.0.0-0", "1.0.0 - 0.9.0", "^1.2.3+build", "~1.2.3+b.1", "v1.x", "V1.2.3",
		"1.2.3-beta.01", "1.2.3-beta+", "1.2.3+", "1.2.3 || ^4.5 || ~6.7.8-x.1 || 9.x", strings.Repeat("1", 300)+".0.0",
		"^1.2.3+"+strings.Repeat("b", 300), "~1.2.3+"+strings.Repeat("b", 251), "1.2.3+"+strings.Repeat("b", 250)+" || 2",
		"^1.2.3-"+strings.Repeat("a", 251), ">=1.2.3-"+strings.Repeat("7", 257), "1.x+"+strings.Repeat("b", 260))
	return out
}

// versionCorpus is the versions each range is tried on.
var versionCorpus = []string{"0.0.0", "0.0.1", "0.0.1-rc", "0.0.3", "0.0.3-rc.1", "0.0.4", "0.1.0", "0.2.3", "0.2.9", "0.3.0",
	"0.9.0", "1.0.0", "1.0.0-0", "1.1.0", "1.2.0", "1.2.2", "1.2.3-0", "1.2.3-alpha.1", "1.2.3-alpha.3", "1.2.3-beta",
	"1.2.3-beta.1", "1.2.3-beta.2", "1.2.3-beta.11", "1.2.3-x.7.z.92", "1.2.3", "1.2.3+build.5", "1.2.4-beta", "1.2.4",
	"1.2.9", "1.3.0", "1.9.9", "2.0.0-rc.1", "2.0.0", "2.0.1-rc.1", "2.3.4", "2.3.5", "2.9.0", "3.0.0", "3.1.0",
	"4.5.0", "6.7.8-x.1", "6.7.9", "9.0.0", "10.0.0", "9007199254740991.0.0", "v1.2.5", "01.2.3", "1.2", "not a version",
	"1.2.3+" + strings.Repeat("b", 251)}

// TestRangesAgreeWithNodeSemver compares ParseRange, Test and
// MaxSatisfying with npm's own semver package over the corpus: every range
// valid or refused alike, the same satisfying versions, the same pick.
func TestRangesAgreeWithNodeSemver(t *testing.T) {
	pkg := nodeSemver(t)
	ranges := rangeCorpus()
	// published are the versions a packument may hold (strict semver):
	// Pick chooses among them.
	pack := &Packument{Name: "p", Versions: map[string]PackumentVersion{}}
	var published []string
	for _, v := range versionCorpus {
		if _, err := semver.StrictNewVersion(v); err == nil {
			published = append(published, v)
			pack.Versions[v] = PackumentVersion{Name: "p", Version: v}
		}
	}
	in, _ := json.Marshal(map[string]any{"ranges": ranges, "versions": versionCorpus, "published": published})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "node-semver.js"), pkg)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var want []struct {
		Valid        bool     `json:"valid"`
		Max          *string  `json:"max"`
		MaxPublished *string  `json:"maxPublished"`
		Satisfying   []string `json:"satisfying"`
	}
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(ranges) {
		t.Fatalf("node's answer: %v (%d of %d)", err, len(want), len(ranges))
	}
	for i, r := range ranges {
		w := want[i]
		rg, err := ParseRange(r)
		if (err == nil) != w.Valid {
			t.Errorf("ParseRange(%q): err %v, node-semver valid %v", r, err, w.Valid)
			continue
		}
		if err != nil {
			continue
		}
		var sat []string
		for _, v := range versionCorpus {
			if rg.Test(v) {
				sat = append(sat, v)
			}
		}
		if !slices.Equal(sat, w.Satisfying) {
			t.Errorf("%q satisfied by %q, node-semver %q", r, sat, w.Satisfying)
		}
		wantMax := ""
		if w.Max != nil {
			wantMax = *w.Max
		}
		if got := rg.MaxSatisfying(versionCorpus); got != wantMax {
			t.Errorf("MaxSatisfying(%q) = %q, node-semver %q", r, got, wantMax)
		}
		// spirit's own choice (no dist-tags, nothing deprecated) is npm's
		if isTag(r) || strings.TrimSpace(r) == "" {
			continue
		}
		got, err := Pick(pack, "p", r)
		switch {
		case w.MaxPublished == nil && err == nil:
			t.Errorf("Pick(%q) = %q, node-semver picks none", r, got)
		case w.MaxPublished != nil && got != *w.MaxPublished:
			t.Errorf("Pick(%q) = %q, %v; node-semver picks %q", r, got, err, *w.MaxPublished)
		}
	}
	t.Logf("%d ranges × %d versions agree with semver@%s", len(ranges), len(versionCorpus), nodeSemverVersion)
}
