package catalog

import (
	"testing"

	"github.com/spiritagents/spirit/install"
)

// TestItemForOnlyMarketplaceInstalls: an install is the catalog item's only
// when its record says it came from that item of that index; a same-named
// package from anywhere else is not (dependency confusion).
func TestItemForOnlyMarketplaceInstalls(t *testing.T) {
	cat := &Catalog{Items: []Item{
		{ExtensionID: "corp.internal", PackageName: "@corp/internal"},
		{ExtensionID: "@corp/other", PackageName: "corp-other"},
	}}
	here, _ := ParseSource("https://index.example/reg/")
	elsewhere, _ := ParseSource("https://mirror.example/reg/")
	official, _ := ParseSource("")
	rec := func(src, index, id string) *install.Record {
		return &install.Record{InstallSource: src, MarketplaceIndex: index, MarketplaceID: id}
	}
	tests := []struct {
		name   string
		src    *Source
		in     install.Installed
		wantID string
	}{
		{name: "local tarball with the packageName", src: here,
			in: install.Installed{ID: "@corp/internal", Record: rec(install.SourceArchive, "", "")}},
		{name: "npm package with an extensionId as name", src: here,
			in: install.Installed{ID: "@corp/other", Record: &install.Record{InstallSource: install.SourceArchive, Source: "npm:@corp/other"}}},
		{name: "marketplace install from this index", src: here, wantID: "corp.internal",
			in: install.Installed{ID: "@corp/internal", Record: rec(install.SourceMarketplace, "https://index.example/reg/", "corp.internal")}},
		{name: "marketplace install from another index", src: elsewhere,
			in: install.Installed{ID: "@corp/internal", Record: rec(install.SourceMarketplace, "https://index.example/reg/", "corp.internal")}},
		{name: "apps install, official index", src: official, wantID: "corp.internal",
			in: install.Installed{ID: "@corp/internal", Entry: &install.Entry{ID: "@corp/internal", InstallSource: install.SourceMarketplace}}},
		{name: "apps install, another index", src: here,
			in: install.Installed{ID: "@corp/internal", Entry: &install.Entry{ID: "@corp/internal", InstallSource: install.SourceMarketplace}}},
		{name: "archive entry without record, official index", src: official,
			in: install.Installed{ID: "@corp/internal", Entry: &install.Entry{ID: "@corp/internal", InstallSource: install.SourceArchive}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if it := ItemFor(cat, tt.src, &tt.in); it != nil {
				got = it.ExtensionID
			}
			if got != tt.wantID {
				t.Errorf("ItemFor = %q, want %q", got, tt.wantID)
			}
		})
	}
}

func TestIndexNameHidesCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"https://alice:S3cret@index.example/reg":     "https://alice:xxxxx@index.example/reg/",
		"git+https://bob:tok@git.example/r.git#main": "git+https://bob:xxxxx@git.example/r.git#main",
		"https://index.example/reg/?q=1":             "https://index.example/reg/",
		"git+https://git.example/r.git":              "git+https://git.example/r.git",
	} {
		src, err := ParseSource(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := IndexName(src); got != want {
			t.Errorf("IndexName(%q) = %q, want %q", in, got, want)
		}
	}
}
