package registry

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/internal/testutil/golden"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/registry/registrytest"
)

const fixtures = "../testdata/registry"

// copyTree copies the files of src into dst.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
}

// newNPM returns an npm.Client for the registry at url with its cache in cacheDir.
func newNPM(t testing.TB, url, cacheDir string) *npm.Client {
	t.Helper()
	c, err := npm.NewClient(npm.Config{Registry: url + "/", CacheDir: cacheDir, Getenv: func(string) string { return "" },
		HomeDir: cacheDir, WorkDir: cacheDir, Limits: fetch.Limits{RetryDelay: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// generated returns the files a build writes under root: catalog.json and
// every detail.json, by path relative to root.
func generated(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(filepath.Join(root, "registry"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (d.Name() == "detail.json" || d.Name() == "catalog.json") {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	return out
}

// underRoot is a path in the registry repository once its root is $ROOT.
var underRoot = regexp.MustCompile(`\$ROOT\S*`)

// problemLines spells the problems as the goldens do: the repository root
// as $ROOT, and paths under it with slashes on every OS.
func problemLines(ps []Problem, root string, npmURL ...string) string {
	var b strings.Builder
	for _, p := range ps {
		line := underRoot.ReplaceAllStringFunc(strings.ReplaceAll(p.String(), root, "$ROOT"), filepath.ToSlash)
		for _, u := range npmURL {
			line = strings.ReplaceAll(line, u, "$NPM")
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestGolden builds every fixture of testdata/registry: repo/ is the
// registry repository, npm/ the packuments served, and want/ either the
// files the build must leave (byte for byte) or problems.txt, the problems
// it must report while leaving repo/ untouched.
func TestGolden(t *testing.T) {
	dirs, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := CompileSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		name := d.Name()
		t.Run(name, func(t *testing.T) {
			fx := filepath.Join(fixtures, name)
			srv, err := registrytest.NewDirServer(filepath.Join(fx, "npm"), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			root := filepath.Join(tempdir.New(t), "repo")
			copyTree(t, filepath.Join(fx, "repo"), root)
			before := generated(t, root)
			res, err := Build(context.Background(), BuildOptions{Root: root, NPM: newNPM(t, srv.URL, tempdir.New(t)), Jobs: 4, Schemas: schemas})
			wantProblems := filepath.Join(fx, "want", "problems.txt")
			var got string
			var pe *ProblemsError
			switch {
			case errors.As(err, &pe):
				got = problemLines(pe.Problems, root, srv.URL)
			case err != nil:
				got = "error: " + strings.ReplaceAll(err.Error(), root, "$ROOT") + "\n"
			default:
				got = problemLines(res.Warnings, root)
			}
			if err != nil {
				if diff := cmp.Diff(before, generated(t, root)); diff != "" {
					t.Errorf("a failed build changed files (-before +after):\n%s", diff)
				}
				if golden.Updatable(filepath.Join(fx, "want")) {
					golden.Write(t, wantProblems, []byte(got))
					return
				}
				want, rerr := os.ReadFile(wantProblems)
				if rerr != nil {
					t.Fatalf("build failed: %v\n%s", err, got)
				}
				if diff := cmp.Diff(string(want), got); diff != "" {
					t.Errorf("problems (-want +got):\n%s", diff)
				}
				return
			}
			files := generated(t, root)
			if golden.Updatable(filepath.Join(fx, "want")) {
				_ = os.RemoveAll(filepath.Join(fx, "want"))
				for rel, data := range files {
					golden.Write(t, filepath.Join(fx, "want", rel), []byte(data))
				}
				if got != "" {
					golden.Write(t, filepath.Join(fx, "want", "warnings.txt"), []byte(got))
				}
				return
			}
			want := generated(t, filepath.Join(fx, "want"))
			if diff := cmp.Diff(want, files); diff != "" {
				t.Errorf("generated files (-want +got):\n%s", diff)
			}
			wantWarn, _ := os.ReadFile(filepath.Join(fx, "want", "warnings.txt"))
			if diff := cmp.Diff(string(wantWarn), got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			// What the build wrote passes the validator, and a check finds nothing stale.
			ps, err := Validate(ValidateOptions{Root: root})
			if err != nil || len(ps) > 0 {
				t.Errorf("validate after build: %v\n%s", err, problemLines(ps, root))
			}
			res, err = Build(context.Background(), BuildOptions{Root: root, NPM: newNPM(t, srv.URL, tempdir.New(t)), Check: true})
			if err != nil || res.Stale() {
				t.Errorf("check after build: %v %+v", err, res)
			}
		})
	}
}

// TestRecordedWantIsNotUpdatable keeps -update away from the reference
// builder's recorded output, and only from it.
func TestRecordedWantIsNotUpdatable(t *testing.T) {
	if !golden.Recorded(filepath.Join(fixtures, "upstream-demo", "want")) {
		t.Error("-update would rewrite testdata/registry/upstream-demo/want, the reference builder's output")
	}
	if golden.Recorded(filepath.Join(fixtures, "forms", "want")) {
		t.Error("-update would not rewrite testdata/registry/forms/want")
	}
}
