package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/spiritagents/spirit/internal/cli"
)

// TestReferenceUpToDate regenerates the reference into a temporary folder
// and compares it with docs/reference and docs/man: a command or flag
// added without `make docs` fails here.
func TestReferenceUpToDate(t *testing.T) {
	tmp := t.TempDir()
	md, man := filepath.Join(tmp, "reference"), filepath.Join(tmp, "man")
	if err := write(cli.CommandTree(), md, man); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join("..", "..", "docs")
	stale := compareDirs(t, md, filepath.Join(repo, "reference"), ".md")
	stale = append(stale, compareDirs(t, man, filepath.Join(repo, "man"), ".1")...)
	for _, s := range stale {
		t.Errorf("docs/%s", s)
	}
	if len(stale) > 0 {
		t.Log("the command reference is stale: run make docs and commit docs/reference and docs/man")
	}
}

// compareDirs returns what differs between the generated files in want
// and the checked-in files in got that end in ext.
func compareDirs(t *testing.T, want, got, ext string) []string {
	t.Helper()
	w, g := readPages(t, want, ext), readPages(t, got, ext)
	var out []string
	for name, data := range w {
		old, ok := g[name]
		switch {
		case !ok:
			out = append(out, filepath.Base(got)+"/"+name+" is missing")
		case !bytes.Equal(old, data):
			out = append(out, filepath.Base(got)+"/"+name+" differs")
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			out = append(out, filepath.Base(got)+"/"+name+" belongs to no command")
		}
	}
	return out
}

func readPages(t *testing.T, dir, ext string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	pages := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ext {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		pages[e.Name()] = data
	}
	return pages
}

// TestDeterministic: two runs write the same bytes, and a second run into
// a folder with a page of a command that is gone removes it.
func TestDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := write(cli.CommandTree(), filepath.Join(a, "md"), filepath.Join(a, "man")); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(b, "md", "spirit_gone.md")
	if err := os.MkdirAll(filepath.Dir(stray), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stray, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := write(cli.CommandTree(), filepath.Join(b, "md"), filepath.Join(b, "man")); err != nil {
		t.Fatal(err)
	}
	if diff := compareDirs(t, filepath.Join(a, "md"), filepath.Join(b, "md"), ".md"); len(diff) > 0 {
		t.Errorf("second run differs: %v", diff)
	}
	if diff := compareDirs(t, filepath.Join(a, "man"), filepath.Join(b, "man"), ".1"); len(diff) > 0 {
		t.Errorf("second run differs: %v", diff)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("the page of a command that is gone was kept: %v", err)
	}
}
