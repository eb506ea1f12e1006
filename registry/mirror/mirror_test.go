package mirror

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/npm"
)

const fixture = "../../testdata/catalog/registry"

func client(t *testing.T, src string) *catalog.Client {
	t.Helper()
	c, err := catalog.New(catalog.Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func run(t *testing.T, opts Options) (*Result, error) {
	t.Helper()
	return Mirror(context.Background(), opts)
}

// copyFixture copies the fixture index into a temp folder the test may change.
func copyFixture(t *testing.T) string {
	t.Helper()
	dir := tempdir.New(t)
	if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestMirrorFolder(t *testing.T) {
	out := tempdir.New(t)
	res, err := run(t, Options{Source: client(t, fixture), Out: out})
	var re *RefusedError
	if !errors.As(err, &re) || !errors.Is(err, ErrRefused) || !errors.Is(err, npm.ErrIntegrity) {
		t.Fatalf("err = %v, want the tampered tarball refused", err)
	}
	var refused []string
	for _, r := range re.Refused {
		refused = append(refused, r.ExtensionID)
	}
	if !slices.Equal(refused, []string{"fixture.tampered", "fixture.sha1"}) {
		t.Errorf("refused %v", refused)
	}
	if _, err := os.Stat(filepath.Join(out, "tarballs", "fixture.tampered")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the tampered tarball was written: %v", err)
	}
	if len(res.Downloaded) != 12 {
		t.Errorf("downloaded %d tarballs: %v", len(res.Downloaded), res.Downloaded)
	}

	// The mirror is an index of its own: every listed version installs
	// from it with the source's integrity, through relative URLs.
	m := client(t, out)
	cat, err := m.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cat.Find("fixture.tampered") != nil {
		t.Error("the tampered extension, left with no version, is in the mirror's catalog")
	}
	if it := cat.Find("fixture.blocked"); it == nil || it.Status != catalog.StatusBlocked {
		t.Error("the blocked item did not carry its status")
	}
	src := client(t, fixture)
	p, err := m.Prepare(context.Background(), "fixture.hello", catalog.Selector{Version: "1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	sp, _ := src.Prepare(context.Background(), "fixture.hello", catalog.Selector{Version: "1.0.0"})
	if p.Version.TarballURL != "tarballs/fixture.hello/fixture-hello-1.0.0.tgz" || p.Version.Integrity != sp.Version.Integrity {
		t.Errorf("mirrored version: url %q integrity %q", p.Version.TarballURL, p.Version.Integrity)
	}
	tb, err := m.Tarball(context.Background(), p, false)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Temporary {
		os.Remove(tb.Path)
	}
	readme, _, err := m.Readme(context.Background(), "fixture.hello")
	if err != nil || !strings.Contains(readme, "Hello") {
		t.Errorf("README: %q, %v", readme, err)
	}

	// A second run is a no-op.
	again, _ := run(t, Options{Source: client(t, fixture), Out: out})
	if len(again.Downloaded)+len(again.Written)+len(again.Removed) != 0 {
		t.Errorf("second run: downloaded %v, wrote %v, removed %v", again.Downloaded, again.Written, again.Removed)
	}
}

// TestMirrorTamperedInMirror: a mirrored tarball changed on disk is
// downloaded again rather than trusted.
func TestMirrorTamperedInMirror(t *testing.T) {
	out := tempdir.New(t)
	opts := Options{Source: client(t, fixture), Out: out, IDs: []string{"fixture.unverified"}}
	if _, err := run(t, opts); err != nil {
		t.Fatal(err)
	}
	tgz := filepath.Join(out, "tarballs", "fixture.unverified", "fixture-unverified-1.0.0.tgz")
	good, _ := os.ReadFile(tgz)
	if err := os.WriteFile(tgz, []byte("not the tarball"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Source = client(t, fixture)
	res, err := run(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(tgz); !bytes.Equal(got, good) || len(res.Downloaded) != 1 {
		t.Errorf("the changed tarball was kept (downloaded %v)", res.Downloaded)
	}
}

// TestMirrorRemoved: what the source drops is removed, unless KeepRemoved.
func TestMirrorRemoved(t *testing.T) {
	src, out := copyFixture(t), tempdir.New(t)
	ids := []string{"fixture.unverified", "fixture.revoked"}
	if _, err := run(t, Options{Source: client(t, src), Out: out, IDs: ids}); err != nil {
		t.Fatal(err)
	}
	cat, _ := os.ReadFile(filepath.Join(src, "catalog.json"))
	cat = bytes.Replace(cat, []byte(`"extensionId": "fixture.revoked"`), []byte(`"extensionId": "fixture.gone"`), 1)
	if err := os.WriteFile(filepath.Join(src, "catalog.json"), cat, 0o644); err != nil {
		t.Fatal(err)
	}

	keep, err := run(t, Options{Source: client(t, src), Out: out, IDs: ids[:1], KeepRemoved: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(keep.Removed) != 0 || keep.Extensions != 2 {
		t.Errorf("--keep-removed: removed %v, %d extensions", keep.Removed, keep.Extensions)
	}
	if _, err := client(t, out).Prepare(context.Background(), "fixture.revoked", catalog.Selector{}); err != nil {
		t.Errorf("the kept extension: %v", err)
	}

	res, err := run(t, Options{Source: client(t, src), Out: out, IDs: ids[:1]})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"extensions/fixture.revoked/README.md", "extensions/fixture.revoked/detail.json",
		"tarballs/fixture.revoked/fixture-revoked-1.0.0.tgz"}
	if !slices.Equal(res.Removed, want) {
		t.Errorf("removed %v, want %v", res.Removed, want)
	}
	if _, err := os.Stat(filepath.Join(out, "tarballs", "fixture.revoked")); !errors.Is(err, os.ErrNotExist) {
		t.Error("the empty folder of the removed extension is still there")
	}
}

// TestMirrorSelect: --channel and --host keep only matching versions and
// move the default onto one of them.
func TestMirrorSelect(t *testing.T) {
	out := tempdir.New(t)
	res, err := run(t, Options{Source: client(t, fixture), Out: out, IDs: []string{"fixture.hello", "fixture.desktop-only"},
		Channels: []string{"preview"}, Hosts: []string{"cli"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Extensions != 1 || res.Versions != 1 {
		t.Fatalf("%d extensions, %d versions", res.Extensions, res.Versions)
	}
	d, it, err := client(t, out).Detail(context.Background(), "fixture.hello")
	if err != nil {
		t.Fatal(err)
	}
	if d.DefaultVersion != "1.2.0-beta.1" || it.DefaultChannel != "preview" || len(d.Warnings) != 0 {
		t.Errorf("default %s (%s), warnings %v", d.DefaultVersion, it.DefaultChannel, d.Warnings)
	}
	if _, err := run(t, Options{Source: client(t, fixture), Out: out, IDs: []string{"nope"}}); !errors.Is(err, ErrUnknownID) {
		t.Errorf("unknown id: %v", err)
	}
}

// TestMirrorOverHTTP: a mirror made from an index served over HTTP, then
// served itself over HTTP, installs with relative tarball URLs.
func TestMirrorOverHTTP(t *testing.T) {
	srv := httptest.NewServer(http.FileServer(http.Dir(fixture)))
	defer srv.Close()
	out := tempdir.New(t)
	if _, err := run(t, Options{Source: client(t, srv.URL), Out: out, IDs: []string{"fixture.hello"}}); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	ms := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer ms.Close()
	m := client(t, ms.URL)
	p, err := m.Prepare(context.Background(), "fixture.hello", catalog.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.TarballLocation(), ms.URL+"/tarballs/fixture.hello/") {
		t.Errorf("tarball location %s", p.TarballLocation())
	}
	tb, err := m.Tarball(context.Background(), p, false)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Temporary {
		os.Remove(tb.Path)
	}
}

// TestMirrorHostile: an id that is not a safe folder name is left out, and
// a link planted in the mirror that leads out of it is never written
// through.
func TestMirrorHostile(t *testing.T) {
	src, out, outside := copyFixture(t), tempdir.New(t), tempdir.New(t)
	cat, _ := os.ReadFile(filepath.Join(src, "catalog.json"))
	cat = bytes.Replace(cat, []byte(`"extensionId": "fixture.revoked"`), []byte(`"extensionId": "../../evil"`), 1)
	if err := os.WriteFile(filepath.Join(src, "catalog.json"), cat, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out, "tarballs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(out, "tarballs", "fixture.unverified")); err != nil {
		t.Fatal(err)
	}
	res, err := run(t, Options{Source: client(t, src), Out: out, IDs: []string{"../../evil", "fixture.unverified", "fixture.deprecated"}})
	var re *RefusedError
	if !errors.As(err, &re) || len(re.Refused) != 1 || re.Refused[0].ExtensionID != "fixture.unverified" {
		t.Fatalf("err = %v", err)
	}
	var warned bool
	for _, w := range res.Warnings {
		warned = warned || strings.Contains(w.Message, `"../../evil"`)
	}
	if !warned || res.Extensions != 1 {
		t.Errorf("%d extensions, warnings %v", res.Extensions, res.Warnings)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("written through the link: %v", ents)
	}
	if ents, _ := os.ReadDir(filepath.Dir(filepath.Dir(out))); slices.ContainsFunc(ents, func(e os.DirEntry) bool { return e.Name() == "evil" }) {
		t.Error("the hostile id escaped the mirror")
	}
}

// TestMirrorBaseURL: with a base URL the tarball URLs are absolute and the
// mirror served there installs; a second run is still a no-op.
func TestMirrorBaseURL(t *testing.T) {
	out := tempdir.New(t)
	ms := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer ms.Close()
	opts := Options{Source: client(t, fixture), Out: out, IDs: []string{"fixture.unverified"}, BaseURL: ms.URL + "/"}
	if _, err := run(t, opts); err != nil {
		t.Fatal(err)
	}
	p, err := client(t, ms.URL).Prepare(context.Background(), "fixture.unverified", catalog.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if want := ms.URL + "/tarballs/fixture.unverified/fixture-unverified-1.0.0.tgz"; p.Version.TarballURL != want {
		t.Errorf("tarballUrl %q, want %q", p.Version.TarballURL, want)
	}
	if tb, err := client(t, ms.URL).Tarball(context.Background(), p, false); err != nil {
		t.Error(err)
	} else if tb.Temporary {
		os.Remove(tb.Path)
	}
	opts.Source = client(t, fixture)
	if res, err := run(t, opts); err != nil || len(res.Written)+len(res.Downloaded)+len(res.Removed) != 0 {
		t.Errorf("second run: %+v, %v", res, err)
	}
	for _, bad := range []string{"http://example.org/", "ftp://x/", "https://u:p@x/", "nohost"} {
		if _, err := run(t, Options{Source: client(t, fixture), Out: out, BaseURL: bad}); !errors.Is(err, ErrBaseURL) {
			t.Errorf("base URL %q: %v", bad, err)
		}
	}
}
