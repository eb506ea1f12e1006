package catalog

import (
	"slices"
	"testing"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/manifest"
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
		{name: "apps install, any index (the apps record none)", src: here, wantID: "corp.internal",
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
		"https://alice:S3cret@index.example/reg":     "https://index.example/reg/",
		"git+https://bob:tok@git.example/r.git#main": "git+https://git.example/r.git#main",
		"git+https://ghp_t0k@git.example/r.git":      "git+https://git.example/r.git",
		"git+https://git.example/r.git?token=t0k":    "git+https://git.example/r.git?token=REDACTED",
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

func TestDiffApprovalModes(t *testing.T) {
	mk := func(tools ...manifest.Tool) *manifest.Manifest {
		return &manifest.Manifest{Contributes: &manifest.Contributes{Tools: tools}}
	}
	tool := func(name, mode string) manifest.Tool { return manifest.Tool{Name: name, ApprovalMode: mode} }
	tests := []struct {
		name       string
		prev, next *manifest.Manifest
		want       []ApprovalChange
		wantTools  []string
	}{
		{name: "need-approval to allowed", prev: mk(tool("run", "need-approval")), next: mk(tool("run", "allowed")),
			want: []ApprovalChange{{"run", "need-approval", "allowed"}}},
		{name: "need-approval to unset", prev: mk(tool("run", "need-approval")), next: mk(tool("run", "")),
			want: []ApprovalChange{{"run", "need-approval", "allowed"}}},
		{name: "need-questions to allowed", prev: mk(tool("ask", "need-questions")), next: mk(tool("ask", "allowed")),
			want: []ApprovalChange{{"ask", "need-questions", "allowed"}}},
		{name: "tightened", prev: mk(tool("run", "")), next: mk(tool("run", "need-approval"))},
		{name: "need-approval to need-questions", prev: mk(tool("run", "need-approval")), next: mk(tool("run", "need-questions"))},
		{name: "unchanged", prev: mk(tool("run", "need-approval")), next: mk(tool("run", "need-approval"))},
		{name: "a duplicate does not hide it", prev: mk(tool("run", "need-approval")), next: mk(tool("run", "need-approval"), tool("run", "allowed")),
			want: []ApprovalChange{{"run", "need-approval", "allowed"}}},
		{name: "added tool", prev: mk(tool("run", "need-approval")), next: mk(tool("run", "need-approval"), tool("rm", "")),
			wantTools: []string{"rm"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Diff(tt.prev, tt.next, nil)
			if !slices.Equal(a.ApprovalModes, tt.want) || !slices.Equal(a.Tools, tt.wantTools) {
				t.Errorf("approvals %v tools %v, want %v %v", a.ApprovalModes, a.Tools, tt.want, tt.wantTools)
			}
			if a.Empty() != (len(tt.want)+len(tt.wantTools) == 0) {
				t.Errorf("Empty() = %v", a.Empty())
			}
		})
	}
}
