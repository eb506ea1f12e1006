// Package importrules holds the test that the import rules written in
// ARCHITECTURE.md ("Imports point one way, down this list") are the ones the
// code keeps: every import between this module's packages is named on the
// importer's line and points down the list.
package importrules

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// rule is one line of the documented list.
type rule struct {
	line     int      // position in the list, from 0 at the top
	names    []string // the packages of the line, relative to the module; "x/…" is a folder
	imports  []string // what they may import, as names
	anyBelow bool     // "everything below"
}

// rules is the documented list.
type rules []rule

var parenthetical = regexp.MustCompile(`\([^)]*\)`)

// parseRules reads the fenced block that follows the paragraph starting
// "Imports point one way" in ARCHITECTURE.md.
func parseRules(doc string) (rules, error) {
	sc := bufio.NewScanner(strings.NewReader(doc))
	state := 0 // 0 before the paragraph, 1 before the fence, 2 in the block
	var rs rules
	for sc.Scan() {
		text := sc.Text()
		switch {
		case state == 0 && strings.HasPrefix(text, "Imports point one way"):
			state = 1
		case state == 1 && strings.HasPrefix(text, "```"):
			state = 2
		case state == 2 && strings.HasPrefix(text, "```"):
			if len(rs) == 0 {
				return nil, fmt.Errorf("the import list is empty")
			}
			return rs, nil
		case state == 2:
			lhs, rhs, ok := strings.Cut(text, "→")
			if !ok {
				return nil, fmt.Errorf("import list line %q has no →", text)
			}
			r := rule{line: len(rs), names: splitNames(lhs)}
			rhs = strings.TrimSpace(parenthetical.ReplaceAllString(rhs, ""))
			switch {
			case strings.HasPrefix(rhs, "everything below"):
				r.anyBelow = true
			case strings.HasPrefix(rhs, "nothing of ours"):
			default:
				r.imports = splitNames(rhs)
			}
			rs = append(rs, r)
		}
	}
	return nil, fmt.Errorf("ARCHITECTURE.md has no import list (a ``` block after \"Imports point one way\")")
}

func splitNames(s string) []string {
	var out []string
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// matches says whether pattern (a name, or "x/…" for every package under
// x) names pkg, and how specific the match is (longer is more specific).
func matches(pattern, pkg string) (bool, int) {
	if dir, ok := strings.CutSuffix(pattern, "/…"); ok {
		if strings.HasPrefix(pkg, dir+"/") {
			return true, len(dir)
		}
		return false, 0
	}
	if pattern == pkg {
		return true, 1 << 20
	}
	return false, 0
}

// find returns the line that names pkg (the most specific one), or nil.
func (rs rules) find(pkg string) *rule {
	var best *rule
	bestLen := -1
	for i := range rs {
		for _, n := range rs[i].names {
			if ok, l := matches(n, pkg); ok && l > bestLen {
				best, bestLen = &rs[i], l
			}
		}
	}
	return best
}

// plumbing is the last line: every package may import what it names.
func (rs rules) plumbing(r *rule) bool { return r == &rs[len(rs)-1] }

// pkg is what go list says about one package of the module, with import
// paths relative to the module.
type pkg struct {
	Path    string
	Main    bool
	Imports []string
}

// check returns one message per import that the rules do not allow.
func (rs rules) check(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		if p.Main {
			continue
		}
		from := rs.find(p.Path)
		if from == nil {
			bad = append(bad, fmt.Sprintf("%s is on no line of ARCHITECTURE.md's import list", p.Path))
			continue
		}
		for _, imp := range p.Imports {
			to := rs.find(imp)
			switch {
			case to == nil:
				bad = append(bad, fmt.Sprintf("%s imports %s, which is on no line of the import list", p.Path, imp))
			case to.line < from.line:
				bad = append(bad, fmt.Sprintf("%s imports %s, which is above it in the import list (an upward import)", p.Path, imp))
			case rs.plumbing(to), from.anyBelow && to.line > from.line:
			case !slices.ContainsFunc(from.imports, func(n string) bool { ok, _ := matches(n, imp); return ok }):
				bad = append(bad, fmt.Sprintf("%s imports %s, which its line of the import list does not name (add it with the reason, or remove the import)", p.Path, imp))
			}
		}
	}
	return bad
}

func TestImportsFollowArchitecture(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(repo, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := parseRules(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, msg := range rs.check(listModule(t, repo, goos)) {
			if !seen[msg] {
				seen[msg] = true
				t.Errorf("GOOS=%s: %s", goos, msg)
			}
		}
	}
}

// listModule returns the module's packages for goos with their imports of
// other packages of the module.
func listModule(t *testing.T, repo, goos string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Name,Imports,Module", "./...")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("GOOS=%s go list: %v", goos, err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var module string
	for dec.More() {
		var p struct {
			ImportPath, Name string
			Imports          []string
			Module           struct{ Path string }
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		module = p.Module.Path
		rel := func(path string) (string, bool) {
			if r, ok := strings.CutPrefix(path, module+"/"); ok {
				return r, true
			}
			return "", false
		}
		q := pkg{Main: p.Name == "main"}
		q.Path, _ = rel(p.ImportPath)
		for _, imp := range p.Imports {
			if r, ok := rel(imp); ok {
				q.Imports = append(q.Imports, r)
			}
		}
		pkgs = append(pkgs, q)
	}
	if len(pkgs) < 20 {
		t.Fatalf("GOOS=%s: go list found %d packages", goos, len(pkgs))
	}
	return pkgs
}

// TestCheckFindsBadImports shows that the check can fail: an upward
// import, an import the line does not name and a package on no line.
func TestCheckFindsBadImports(t *testing.T) {
	doc := "Imports point one way, down this list:\n\n```\n" +
		"internal/cli → everything below\n" +
		"mcp          → exthost (why)\n" +
		"exthost      → install, manifest\n" +
		"install, manifest → nothing of ours\n" +
		"internal/…   → nothing of ours but other plumbing (a, b)\n```\n"
	rs, err := parseRules(doc)
	if err != nil {
		t.Fatal(err)
	}
	got := rs.check([]pkg{
		{Path: "internal/cli", Imports: []string{"mcp", "install", "internal/x"}},
		{Path: "mcp", Imports: []string{"exthost", "internal/x"}},
		{Path: "exthost", Imports: []string{"install", "manifest"}},
		{Path: "install", Imports: []string{"mcp"}},
		{Path: "manifest", Imports: []string{"install"}},
		{Path: "pack"},
		{Path: "cmd/tool", Main: true, Imports: []string{"pack"}},
		{Path: "internal/x", Imports: []string{"internal/y"}},
	})
	want := []string{
		"install imports mcp, which is above it in the import list (an upward import)",
		"manifest imports install, which its line of the import list does not name (add it with the reason, or remove the import)",
		"pack is on no line of ARCHITECTURE.md's import list",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("check =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
