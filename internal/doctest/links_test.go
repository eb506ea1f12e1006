package doctest

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinks checks every relative link of README.md and docs/**/*.md
// (the reference included): the file exists, and a #fragment names a
// heading of it. The README links only into the repository.
func TestLinks(t *testing.T) {
	repo := filepath.Join("..", "..")
	files := []string{"README.md", "CONTRIBUTING.md", "ARCHITECTURE.md"}
	err := filepath.WalkDir(filepath.Join(repo, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(repo, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		text, err := os.ReadFile(filepath.Join(repo, file))
		if err != nil {
			return nil
		}
		anchors[file] = headingAnchors(string(text))
		return anchors[file]
	}
	for _, file := range files {
		text, err := os.ReadFile(filepath.Join(repo, file))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range proseLines(string(text)) {
			for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					if file == "README.md" {
						t.Errorf("%s:%d: %s: the README links only into the repository", file, i+1, target)
					}
					continue
				}
				page, frag, _ := strings.Cut(target, "#")
				dest := file
				if page != "" {
					dest = path.Clean(path.Join(path.Dir(file), page))
				}
				if strings.HasPrefix(dest, "../") {
					t.Errorf("%s:%d: %s leads out of the repository", file, i+1, target)
					continue
				}
				if _, err := os.Stat(filepath.Join(repo, filepath.FromSlash(dest))); err != nil {
					t.Errorf("%s:%d: %s: no such file %s", file, i+1, target, dest)
					continue
				}
				if frag != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[frag] {
					t.Errorf("%s:%d: %s: %s has no heading #%s", file, i+1, target, dest, frag)
				}
			}
		}
	}
}

// proseLines returns the lines of a Markdown text with the lines of code
// blocks and inline code spans blanked, keeping line numbers.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	fence := ""
	code := regexp.MustCompile("`[^`]*`")
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			fence = t[:3]
			lines[i] = ""
			continue
		}
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			lines[i] = ""
			continue
		}
		lines[i] = code.ReplaceAllString(l, "")
	}
	return lines
}

// headingAnchors returns the fragment GitHub gives each heading: lower
// case, punctuation dropped, spaces as hyphens, -1, -2 … for repeats.
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		out[a] = true
	}
	return out
}
