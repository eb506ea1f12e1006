package install_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/install/internal/corpus"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/paths"
)

const corpusDir = "../testdata/install"

// TestCorpusUpToDate proves the checked-in corpus is what the generator
// makes, so the two cannot drift apart.
func TestCorpusUpToDate(t *testing.T) {
	cases := corpus.Cases()
	if len(cases) < 30 {
		t.Fatalf("corpus has %d cases, want at least 30", len(cases))
	}
	seen := map[string]string{}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join(corpusDir, "malicious", c.Name))
		if err != nil {
			t.Fatalf("%v (run: go run ./install/internal/genarchives)", err)
		}
		if !bytes.Equal(data, c.Data) {
			t.Errorf("%s differs from the generator's output (run: go run ./install/internal/genarchives)", c.Name)
		}
		want, _ := os.ReadFile(filepath.Join(corpusDir, "malicious", c.Name+".err"))
		if string(want) != c.Want+"\n" {
			t.Errorf("%s.err = %q, generator says %q", c.Name, want, c.Want)
		}
		if other, dup := seen[c.Want]; dup {
			t.Errorf("%s and %s expect the same error %q; each case needs its own", c.Name, other, c.Want)
		}
		seen[c.Want] = c.Name
	}
	for name, data := range corpus.Good() {
		got, err := os.ReadFile(filepath.Join(corpusDir, "good", name))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("good/%s is missing or stale (run: go run ./install/internal/genarchives)", name)
		}
	}
}

// snapshot maps every path under root to a digest of its type, mode and content.
func snapshot(t *testing.T, root string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, s := range skip {
			if rel == s || strings.HasPrefix(rel, s+string(filepath.Separator)) {
				if d.IsDir() && rel == s {
					return nil
				}
				return nil
			}
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			v += " " + hex.EncodeToString(sum[:])
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func newInstaller(t *testing.T) (*install.Installer, string) {
	t.Helper()
	root := tempdir.New(t)
	p := paths.New(filepath.Join(root, "data"), paths.HostCLI)
	return &install.Installer{Paths: p}, root
}

func goodPath(name string) string { return filepath.Join(corpusDir, "good", name) }

// TestMaliciousCorpus installs every corpus archive over an existing
// install and checks the exact error, that the existing install is
// byte-identical, and that nothing was written anywhere else.
func TestMaliciousCorpus(t *testing.T) {
	in, root := newInstaller(t)
	ctx := context.Background()
	if _, err := in.Install(ctx, install.Request{Path: goodPath("corpus-ext-1.0.0.zip")}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, root)
	for _, c := range corpus.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			src := filepath.Join(corpusDir, "malicious", c.Name)
			wantB, err := os.ReadFile(src + ".err")
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSuffix(string(wantB), "\n")
			_, err = in.Install(ctx, install.Request{Path: src, Replace: true, AllowDowngrade: true})
			if err == nil {
				t.Fatal("installed; want a refusal")
			}
			if got := strings.ReplaceAll(err.Error(), src, corpus.Archive); got != want {
				t.Errorf("error = %q\nwant    %q", got, want)
			}
			var ee *install.EntryError
			if errors.As(err, &ee) && !errors.Is(err, install.ErrUnsafe) {
				t.Errorf("an EntryError must match ErrUnsafe")
			}
			after := snapshot(t, root)
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("the tree changed (-before +after):\n%s", diff)
			}
			// The read-only reader applies the same rules.
			if _, rerr := install.ReadArchive(src); rerr == nil && ee != nil {
				t.Errorf("ReadArchive accepted an archive that Install refused: %v", err)
			} else if ee != nil && strings.ReplaceAll(rerr.Error(), src, corpus.Archive) != want {
				t.Errorf("ReadArchive error = %q, want %q", rerr, want)
			}
		})
	}
}

func TestReadArchive(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		want    []string
		version string
	}{
		{name: "zip with a folder root", file: "corpus-ext-1.0.0.zip", want: []string{"README.md", "bin/run.sh", "dist/index.js", "package.json"}, version: "1.0.0"},
		{name: "tgz", file: "corpus-ext-2.0.0.tgz", want: []string{"README.md", "bin/run.sh", "dist/index.js", "package.json"}, version: "2.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := install.ReadArchive(goodPath(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range tt.want {
				if _, err := fs.Stat(a.FS, name); err != nil {
					t.Errorf("missing %s: %v", name, err)
				}
			}
			if _, err := fs.Stat(a.FS, "outside.txt"); err == nil {
				t.Errorf("a file outside the package root was kept")
			}
			if !strings.Contains(string(a.Manifest), `"version": "`+tt.version+`"`) {
				t.Errorf("manifest = %s", a.Manifest)
			}
			fi, err := fs.Stat(a.FS, "bin/run.sh")
			if err != nil || fi.Mode().Perm() != 0o755 {
				t.Errorf("bin/run.sh mode = %v, want 0755", fi.Mode())
			}
		})
	}
}

func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}
