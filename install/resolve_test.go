package install_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/npm"
)

func TestResolveLocal(t *testing.T) {
	dir := tempdir.New(t)
	tests := []struct {
		name     string
		source   string
		zipOnly  bool
		kind     string
		archive  string
		wantErrs []error
	}{
		{name: "directory", source: dir, kind: install.KindDir},
		{name: "zip", source: goodPath("corpus-ext-1.0.0.zip"), kind: install.KindArchive, archive: "corpus-ext-1.0.0.zip"},
		{name: "tgz with spaces around", source: "  " + goodPath("corpus-ext-2.0.0.tgz") + " ", kind: install.KindArchive, archive: "corpus-ext-2.0.0.tgz"},
		{name: "import of a zip", source: goodPath("corpus-ext-1.0.0.zip"), zipOnly: true, kind: install.KindArchive, archive: "corpus-ext-1.0.0.zip"},
		{name: "import of a tgz", source: goodPath("corpus-ext-2.0.0.tgz"), zipOnly: true, wantErrs: []error{install.ErrNotZip, install.ErrInvalidSource}},
		{name: "import of nothing", source: filepath.Join(dir, "none.zip"), zipOnly: true, wantErrs: []error{os.ErrNotExist}},
		{name: "nothing", source: filepath.Join(dir, "none"), wantErrs: []error{install.ErrNoSource}},
		{name: "bad npm spec", source: "npm:@@", wantErrs: []error{install.ErrInvalidSource, npm.ErrInvalidSpec}},
		{name: "npm without a resolver", source: "npm:left-pad@1", wantErrs: []error{install.ErrNoResolver}},
		{name: "marketplace without a resolver", source: "marketplace:x.y", wantErrs: []error{install.ErrNoSource}},
		{name: "plain http", source: "http://example.com/x.tgz", wantErrs: []error{install.ErrInsecureURL}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &install.Resolver{ZipOnly: tt.zipOnly, TempDir: tempdir.New(t)}
			a, err := r.Resolve(context.Background(), tt.source)
			for _, want := range tt.wantErrs {
				if !errors.Is(err, want) {
					t.Errorf("error %v does not match %v", err, want)
				}
			}
			if len(tt.wantErrs) > 0 {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			abs, _ := filepath.Abs(a.Path) // a local source is recorded as an absolute path
			if a.Kind != tt.kind || a.ArchiveFileName != tt.archive || a.InstallSource != install.SourceArchive || (!tt.zipOnly && a.Source != abs) {
				t.Errorf("artifact %+v", a)
			}
		})
	}
}

// fakeNPM is an NPMClient that serves one tarball from disk.
type fakeNPM struct {
	file      string
	temporary bool
	asked     []npm.Spec
}

func (f *fakeNPM) Resolve(_ context.Context, spec npm.Spec) (*npm.Resolved, error) {
	f.asked = append(f.asked, spec)
	return &npm.Resolved{Name: spec.Name, Version: "2.0.0", TarballURL: "https://registry.example/corpus-ext/-/corpus-ext-2.0.0.tgz"}, nil
}

func (f *fakeNPM) FetchTarball(context.Context, *npm.Resolved) (*npm.Tarball, error) {
	return &npm.Tarball{Path: f.file, Integrity: "sha512-x", Temporary: f.temporary}, nil
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolveNPM(t *testing.T) {
	tmp := filepath.Join(tempdir.New(t), "tmp.tgz")
	copyFile(t, goodPath("corpus-ext-2.0.0.tgz"), tmp)
	fake := &fakeNPM{file: tmp, temporary: true}
	r := &install.Resolver{NPM: func() (install.NPMClient, error) { return fake, nil }}
	a, err := r.Resolve(context.Background(), "npm:corpus-ext@^2")
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.asked) != 1 || fake.asked[0].Name != "corpus-ext" {
		t.Errorf("asked %+v", fake.asked)
	}
	want := install.Request{
		Path: tmp, Replace: true, Source: "npm:corpus-ext@^2", SourceKind: install.KindNPM, InstallSource: install.SourceArchive,
		ResolvedURL: "https://registry.example/corpus-ext/-/corpus-ext-2.0.0.tgz", Integrity: "sha512-x",
		ArchiveFileName: "corpus-ext-2.0.0.tgz", ExpectName: "corpus-ext", ExpectVersion: "2.0.0",
	}
	if diff := cmp.Diff(want, a.Request(true, false)); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	a.Close()
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Close kept the temporary tarball: %v", err)
	}

	boom := errors.New("bad .npmrc")
	r.NPM = func() (install.NPMClient, error) { return nil, boom }
	if _, err := r.Resolve(context.Background(), "npm:corpus-ext"); !errors.Is(err, boom) {
		t.Errorf("client error: %v", err)
	}
}

func TestResolveMarketplace(t *testing.T) {
	var got []install.MarketplaceRef
	r := &install.Resolver{Marketplace: func(_ context.Context, ref install.MarketplaceRef) (*install.Artifact, error) {
		got = append(got, ref)
		return &install.Artifact{Path: goodPath("corpus-ext-1.0.0.zip"), MarketplaceIndex: "https://index.example/", MarketplaceID: "corpus.ext"}, nil
	}}
	for _, src := range []string{"marketplace:corpus.ext@1.0.0", "marketplace:@scope/name", "marketplace: corpus.ext"} {
		a, err := r.Resolve(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		if a.Kind != install.KindMarketplace || a.InstallSource != install.SourceMarketplace {
			t.Errorf("%s: %+v", src, a)
		}
	}
	want := []install.MarketplaceRef{{ID: "corpus.ext", Version: "1.0.0"}, {ID: "@scope/name"}, {ID: "corpus.ext"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"marketplace:", "marketplace:x@"} {
		if _, err := r.Resolve(context.Background(), bad); !errors.Is(err, install.ErrInvalidSource) {
			t.Errorf("%q: %v", bad, err)
		}
	}

	// The marketplace identity reaches the record.
	in, _ := newInstaller(t)
	a, _ := r.Resolve(context.Background(), "marketplace:corpus.ext")
	res, err := in.Install(context.Background(), a.Request(false, false))
	if err != nil {
		t.Fatal(err)
	}
	if rec := res.Record; rec.InstallSource != install.SourceMarketplace || rec.MarketplaceIndex != "https://index.example/" || rec.MarketplaceID != "corpus.ext" {
		t.Errorf("record %+v", rec)
	}
}

// TestResolveURLInstall is the real path: an https server, the default
// downloader, the installer; Close leaves no download behind.
func TestResolveURLInstall(t *testing.T) {
	data, err := os.ReadFile(goodPath("corpus-ext-2.0.0.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/dl/corpus-ext-2.0.0.tgz" {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
	defer srv.Close()
	tmp := tempdir.New(t)
	r := &install.Resolver{HTTPClient: srv.Client(), TempDir: tmp}
	ctx := context.Background()
	if _, err := r.Resolve(ctx, srv.URL+"/dl/missing.tgz"); err == nil {
		t.Fatal("a 404 resolved")
	}
	a, err := r.Resolve(ctx, srv.URL+"/dl/corpus-ext-2.0.0.tgz")
	if err != nil {
		t.Fatal(err)
	}
	in, _ := newInstaller(t)
	res, err := in.Install(ctx, a.Request(false, false))
	a.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.Manifest.Version != "2.0.0" || res.Record.ResolvedURL != srv.URL+"/dl/corpus-ext-2.0.0.tgz" || res.Entry.ArchiveFileName != "corpus-ext-2.0.0.tgz" {
		t.Errorf("installed %+v %+v", res.Record, res.Entry)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("downloads left behind: %v", ents)
	}
}

func TestMarketplaceOriginOwns(t *testing.T) {
	o := install.MarketplaceOrigin{Index: "https://index.example/", ExtensionID: "corp.tool", PackageName: "@corp/tool"}
	official := o
	official.Official = true
	mk := func(index, id string) *install.Record {
		return &install.Record{ID: "@corp/tool", InstallSource: install.SourceMarketplace, MarketplaceIndex: index, MarketplaceID: id}
	}
	appsEntry := &install.Entry{ID: "@corp/tool", InstallSource: install.SourceMarketplace}
	tests := []struct {
		name   string
		origin install.MarketplaceOrigin
		entry  *install.Entry
		record *install.Record
		want   bool
	}{
		{name: "same index and id", origin: o, record: mk("https://index.example/", "corp.tool"), want: true},
		{name: "another index", origin: o, record: mk("https://evil.example/", "corp.tool")},
		{name: "another id", origin: o, record: mk("https://index.example/", "corp.other")},
		{name: "a local archive of the same name", origin: o, record: &install.Record{ID: "@corp/tool", InstallSource: install.SourceArchive, Source: "./tool.tgz"}},
		{name: "archive claiming a marketplace id", origin: o, record: &install.Record{ID: "@corp/tool", InstallSource: install.SourceArchive, MarketplaceIndex: "https://index.example/", MarketplaceID: "corp.tool"}},
		{name: "no index recorded, not the official index", origin: o, record: mk("", "corp.tool")},
		{name: "no index recorded, the official index", origin: official, record: mk("", "corp.tool"), want: true},
		{name: "apps install, any index (the apps record none)", origin: o, entry: appsEntry, want: true},
		{name: "apps install, another package name", origin: install.MarketplaceOrigin{Index: "https://index.example/", ExtensionID: "corp.tool", PackageName: "@corp/other"}, entry: appsEntry},
		{name: "apps install, the official index", origin: official, entry: appsEntry, want: true},
		{name: "archive entry without record", origin: official, entry: &install.Entry{ID: "@corp/tool", InstallSource: install.SourceArchive}},
		{name: "nothing", origin: official},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.origin.Owns(tt.entry, tt.record); got != tt.want {
				t.Errorf("Owns = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestInstallOwnerRefusesForeign: an install with Owner does not replace
// an install from elsewhere, and leaves it as it was.
func TestInstallOwnerRefusesForeign(t *testing.T) {
	in, root := newInstaller(t)
	ctx := context.Background()
	if _, err := in.Install(ctx, install.Request{Path: goodPath("corpus-ext-1.0.0.zip"), Source: "./corpus-ext-1.0.0.zip"}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, root)
	owner := &install.MarketplaceOrigin{Index: "https://index.example/", ExtensionID: "corpus.ext", PackageName: "corpus-ext"}
	req := install.Request{Path: goodPath("corpus-ext-2.0.0.tgz"), Replace: true, InstallSource: install.SourceMarketplace,
		MarketplaceIndex: owner.Index, MarketplaceID: owner.ExtensionID, Owner: owner}
	_, err := in.Install(ctx, req)
	var fe *install.ForeignInstallError
	if !errors.As(err, &fe) || !errors.Is(err, install.ErrForeignInstall) {
		t.Fatalf("err = %v", err)
	}
	want := "corpus-ext 1.0.0 is installed from ./corpus-ext-1.0.0.zip, not from marketplace extension corpus.ext of https://index.example/; installing 2.0.0 would replace it"
	if err.Error() != want {
		t.Errorf("message\n got %s\nwant %s", err, want)
	}
	if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
		t.Errorf("the refused install changed the tree:\n%s", diff)
	}
	// Without Owner (the user's --replace) it replaces; then the owner owns it.
	req.Owner = nil
	if _, err := in.Install(ctx, req); err != nil {
		t.Fatal(err)
	}
	req.Owner, req.Path = owner, goodPath("corpus-ext-1.0.0.zip")
	req.AllowDowngrade = true
	if _, err := in.Install(ctx, req); err != nil {
		t.Errorf("the owner's own install was refused: %v", err)
	}
}
