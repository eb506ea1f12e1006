package registry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/golden"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/registry/registrytest"
)

// TestCheckDiff pins what `registry build --check` shows for the forms
// fixture with one detail.json edited by hand: new files, stale files,
// and a change in the middle of a file, as a unified diff.
func TestCheckDiff(t *testing.T) {
	fx := filepath.Join(fixtures, "forms")
	srv, err := registrytest.NewDirServer(filepath.Join(fx, "npm"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	root := filepath.Join(tempdir.New(t), "repo")
	copyTree(t, filepath.Join(fx, "repo"), root)
	const rel = "registry/extensions/acme.multi/detail.json"
	built, err := os.ReadFile(filepath.Join(fx, "want", rel))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(built), `"description": "Beta build"`, `"description": "Beta build, edited by hand"`, 1)
	if edited == string(built) {
		t.Fatal("the fixture lost its description")
	}
	if err := os.WriteFile(filepath.Join(root, rel), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Build(context.Background(), BuildOptions{Root: root, NPM: newNPM(t, srv.URL, tempdir.New(t)), Check: true})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "check.diff"), []byte(res.Diff))
}
