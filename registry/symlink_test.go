package registry

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/internal/within"
	"github.com/spiritagents/spirit/registry/registrytest"
)

// formsRepo copies the forms fixture into a fresh folder next to an
// "outside" folder, and returns the repository root, the outside folder
// and the npm server's URL.
func formsRepo(t *testing.T) (root, outside, npmURL string) {
	t.Helper()
	fx := filepath.Join(fixtures, "forms")
	srv, err := registrytest.NewDirServer(filepath.Join(fx, "npm"), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	base := tempdir.New(t)
	root, outside = filepath.Join(base, "repo"), filepath.Join(base, "outside")
	copyTree(t, filepath.Join(fx, "repo"), root)
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, outside, srv.URL
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.RemoveAll(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestCheckDoesNotFollowLinkedDetail: in a pull request, a detail.json that
// is a link to a runner file must not be read into the --check diff.
func TestCheckDoesNotFollowLinkedDetail(t *testing.T) {
	root, outside, npmURL := formsRepo(t)
	secret := filepath.Join(outside, "runner.env")
	if err := os.WriteFile(secret, []byte("RUNNER_TOKEN=S3CRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, "../../../../outside/runner.env", filepath.Join(root, "registry", "extensions", "acme.multi", "detail.json"))
	res, err := Build(context.Background(), BuildOptions{Root: root, NPM: newNPM(t, npmURL, tempdir.New(t)), Check: true})
	var pe *ProblemsError
	if res != nil && strings.Contains(res.Diff, "S3CRET") {
		t.Fatalf("the diff shows the link's target:\n%s", res.Diff)
	}
	if !errors.As(err, &pe) || !strings.Contains(pe.Problems[0].Message, "acme.multi/detail.json") || !strings.Contains(pe.Problems[0].Message, "leads out") {
		t.Fatalf("want a problem naming the linked detail.json, got %v %+v", err, pe)
	}
	if _, err := Validate(ValidateOptions{Root: root}); !errors.Is(err, within.ErrEscape) {
		t.Errorf("validate: %v", err)
	}
}

// TestBuildDoesNotWriteThroughLinkedFolder: registry/extensions/<id>/ as a
// link to a folder outside the repository is refused, and nothing is
// written there.
func TestBuildDoesNotWriteThroughLinkedFolder(t *testing.T) {
	root, outside, npmURL := formsRepo(t)
	if err := os.WriteFile(filepath.Join(outside, "README.md"), []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The entry lives in misplaced-folder/; its detail goes to intl.unicode/.
	symlink(t, outside, filepath.Join(root, "registry", "extensions", "intl.unicode"))
	_, err := Build(context.Background(), BuildOptions{Root: root, NPM: newNPM(t, npmURL, tempdir.New(t))})
	if err == nil {
		t.Error("build through a linked folder succeeded")
	} else if lines := problemLines(problemsOf(err), root); !strings.Contains(lines, "intl.unicode") || !strings.Contains(lines, "leads out") {
		t.Errorf("the error does not name the entry: %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("the build wrote outside the repository: %v", ents)
	}
}

func problemsOf(err error) []Problem {
	var pe *ProblemsError
	if errors.As(err, &pe) {
		return pe.Problems
	}
	return nil
}

// TestAddDoesNotWriteThroughLinkedFolder: `registry add` into a
// registry/extensions/<id>/ that links out of the repository writes
// neither the entry nor the README there.
func TestAddDoesNotWriteThroughLinkedFolder(t *testing.T) {
	srv, err := registrytest.NewDirServer(filepath.Join(fixtures, "upstream-demo", "npm"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	base := tempdir.New(t)
	root, outside := filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "registry", "extensions"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const id = "spiritagent.system-message-demo"
	symlink(t, outside, filepath.Join(root, "registry", "extensions", id))
	_, err = Add(context.Background(), AddOptions{Root: root, Package: "@spiritagent/extension-system-message-demo", ID: id, NPM: newNPM(t, srv.URL, tempdir.New(t))})
	if !errors.Is(err, within.ErrEscape) || !strings.Contains(err.Error(), id) {
		t.Errorf("want an error naming the linked folder, got %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("add wrote outside the repository: %v", ents)
	}
}
