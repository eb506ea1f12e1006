package install_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/paths"
)

// referenceRegistry is spec §1.3's example, byte for byte, with a second
// entry that shows the en collation order (_ before -, lowercase first).
const referenceRegistry = `{
  "entries": [
    {
      "id": "@example/spirit-extension",
      "directoryName": "pkg-QGV4YW1wbGUvc3Bpcml0LWV4dGVuc2lvbg",
      "installedAtUnixMs": 1760000000000,
      "archiveFileName": "example.zip",
      "installSource": "archive"
    },
    {
      "id": "my_ext",
      "directoryName": "pkg-bXlfZXh0",
      "installedAtUnixMs": 1760000000001
    }
  ]
}
`

// TestRegistryInterop reads an extensions.json in the reference format and
// proves that an install and a remove keep that format byte for byte.
func TestRegistryInterop(t *testing.T) {
	root := tempdir.New(t)
	p := paths.New(root, paths.HostCLI)
	if err := os.MkdirAll(p.ExtensionsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.RegistryFile(), []byte(referenceRegistry), 0o644); err != nil {
		t.Fatal(err)
	}
	in := &install.Installer{Paths: p, Now: func() time.Time { return time.UnixMilli(1770000000000) }}
	ctx := context.Background()
	if _, err := in.Install(ctx, install.Request{Path: goodPath("corpus-ext-1.0.0.zip"), ArchiveFileName: " corpus-ext-1.0.0.zip "}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p.RegistryFile())
	want := `{
  "entries": [
    {
      "id": "@example/spirit-extension",
      "directoryName": "pkg-QGV4YW1wbGUvc3Bpcml0LWV4dGVuc2lvbg",
      "installedAtUnixMs": 1760000000000,
      "archiveFileName": "example.zip",
      "installSource": "archive"
    },
    {
      "id": "corpus-ext",
      "directoryName": "pkg-Y29ycHVzLWV4dA",
      "installedAtUnixMs": 1770000000000,
      "archiveFileName": "corpus-ext-1.0.0.zip",
      "installSource": "archive"
    },
    {
      "id": "my_ext",
      "directoryName": "pkg-bXlfZXh0",
      "installedAtUnixMs": 1760000000001
    }
  ]
}
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("after install (-want +got):\n%s", diff)
	}
	if _, err := in.Remove(ctx, "corpus-ext", install.RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(p.RegistryFile())
	if diff := cmp.Diff(referenceRegistry, string(got)); diff != "" {
		t.Errorf("after remove (-want +got):\n%s", diff)
	}
}

func TestListSortsAndShowsBroken(t *testing.T) {
	root := tempdir.New(t)
	p := paths.New(root, paths.HostCLI)
	in := &install.Installer{Paths: p}
	ctx := context.Background()
	for _, f := range []string{"other-ext-1.0.0.tgz", "corpus-ext-2.0.0.tgz"} {
		if _, err := in.Install(ctx, install.Request{Path: goodPath(f)}); err != nil {
			t.Fatal(err)
		}
	}
	// Break one install by hand: it must stay listed, and removable.
	broken := filepath.Join(p.PackageDir("other-ext"), "package.json")
	if err := os.WriteFile(broken, []byte("{ nope"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := install.List(p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range list {
		s := it.ID
		if it.Broken != nil {
			s += " broken: " + it.Broken.Error()
		}
		got = append(got, s)
	}
	want := []string{"corpus-ext", "other-ext broken: The extension package.json is not valid JSON."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if _, err := in.Remove(ctx, "other-ext", install.RemoveOptions{}); err != nil {
		t.Fatalf("removing a broken install: %v", err)
	}
	if _, err := os.Stat(p.PackageDir("other-ext")); !os.IsNotExist(err) {
		t.Errorf("broken install still on disk: %v", err)
	}
}

func TestReplaceKeepsOldOnFailure(t *testing.T) {
	in, _ := newInstaller(t)
	ctx := context.Background()
	if _, err := in.Install(ctx, install.Request{Path: goodPath("corpus-ext-1.0.0.zip")}); err != nil {
		t.Fatal(err)
	}
	before := listFiles(t, in.Paths.PackageDir("corpus-ext"))
	// The expected version differs: refused after staging, old install kept.
	_, err := in.Install(ctx, install.Request{Path: goodPath("corpus-ext-2.0.0.tgz"), Replace: true, ExpectVersion: "3.0.0"})
	if err == nil {
		t.Fatal("want an identity error")
	}
	if diff := cmp.Diff(before, listFiles(t, in.Paths.PackageDir("corpus-ext"))); diff != "" {
		t.Errorf("old install changed:\n%s", diff)
	}
	ents, _ := os.ReadDir(in.Paths.StagingDir())
	if len(ents) != 0 {
		t.Errorf("staging not cleaned: %v", ents)
	}
}

func TestIntegrityMismatch(t *testing.T) {
	in, _ := newInstaller(t)
	_, err := in.Install(context.Background(), install.Request{Path: goodPath("corpus-ext-2.0.0.tgz"), Integrity: "sha512-AAAA"})
	if err == nil {
		t.Fatal("want an integrity error")
	}
}

func TestLockTimeout(t *testing.T) {
	in, _ := newInstaller(t)
	in.LockTimeout = 200 * time.Millisecond
	if err := os.MkdirAll(in.Paths.SpiritDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	holder := &install.Installer{Paths: in.Paths}
	unlock, err := install.LockForTest(holder)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	w := &waitRecorder{}
	in.Progress = w
	_, err = in.Install(context.Background(), install.Request{Path: goodPath("corpus-ext-2.0.0.tgz")})
	if err == nil || !w.waited {
		t.Fatalf("err = %v, waited = %v; want a lock timeout after a waiting notice", err, w.waited)
	}
}

type waitRecorder struct{ waited bool }

func (w *waitRecorder) Waiting(string)               { w.waited = true }
func (w *waitRecorder) Extracting(done, total int64) {}
