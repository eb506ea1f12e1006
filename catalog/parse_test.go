package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

const referenceRoot = "../testdata/catalog/reference"

// TestReferenceDocuments parses the real upstream catalog and detail.
func TestReferenceDocuments(t *testing.T) {
	cat, err := ParseCatalog(mustRead(t, filepath.Join(referenceRoot, "catalog.json")))
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Items) != 1 || len(cat.Warnings) != 0 {
		t.Fatalf("items %d warnings %v", len(cat.Items), cat.Warnings)
	}
	it := cat.Items[0]
	want := Item{
		ExtensionID: "spiritagent.system-message-demo", PackageName: "@spiritagent/extension-system-message-demo",
		Status: "listed", Featured: true, DefaultVersion: "0.1.0", DefaultChannel: "stable", DefaultReviewStatus: "verified",
		DetailPath: "extensions/spiritagent.system-message-demo/detail.json", DisplayName: "System message demo",
		Description: "This is an extension example for having the AI output the system message.",
		Author:      "Spirit Agent Official", HomepageURL: "https://github.com/SpiritAgents/extension-system-message-demo#readme",
		RepositoryURL: "https://github.com/SpiritAgents/extension-system-message-demo",
		Keywords:      []string{"spirit-agent", "extension", "system-prompt"}, SupportedHosts: []string{"cli", "desktop"},
		RequestedCapabilities: []string{"system-prompt"},
	}
	if fmt.Sprint(it) != fmt.Sprint(want) {
		t.Fatalf("item\n got %+v\nwant %+v", it, want)
	}
	d, err := ParseDetail(mustRead(t, filepath.Join(referenceRoot, it.DetailPath)))
	if err != nil {
		t.Fatal(err)
	}
	v := d.Find("0.1.0")
	if d.ReadmePath != "extensions/spiritagent.system-message-demo/README.md" || v == nil ||
		v.Integrity != "sha512-rCFCFXiAhFpPeZiD/0/V1J+Dp1ro9ZKgw9XIIVDoO+x/6QH5UNIIBhbGZkbBZfbIxDMiVhHqmJ39SUSuKmy3sg==" ||
		v.Shasum != "776afeb17974134e30b829b9489a67c23dadf137" || v.Changelog == nil || v.Changelog.Summary != "Initial public release." ||
		SourceFileName(v.TarballURL, d.ExtensionID, v.Version) != "extension-system-message-demo-0.1.0.tgz" {
		t.Fatalf("detail %+v", d)
	}
	// The JSON of a parsed item keeps the registry's field names.
	out, _ := json.Marshal(it)
	for _, k := range []string{`"extensionId"`, `"packageName"`, `"defaultReviewStatus"`, `"detailPath"`, `"requestedCapabilities"`} {
		if !strings.Contains(string(out), k) {
			t.Errorf("JSON lacks %s: %s", k, out)
		}
	}
}

func itemJSON(mod func(m map[string]any)) string {
	m := map[string]any{
		"extensionId": "a.b", "packageName": "a-b", "status": "listed", "featured": false,
		"defaultVersion": "1.0.0", "defaultChannel": "stable", "defaultReviewStatus": "verified",
		"detailPath": "extensions/a.b/detail.json", "displayName": "A", "description": "d",
		"supportedHosts": []any{"cli"},
	}
	mod(m)
	b, _ := json.Marshal(m)
	return string(b)
}

func TestParseCatalogItems(t *testing.T) {
	tests := []struct {
		name    string
		mod     func(m map[string]any)
		warning string // "" → the item is kept without warning
		kept    bool
	}{
		{name: "good", mod: func(m map[string]any) {}, kept: true},
		{name: "trimmed", mod: func(m map[string]any) { m["displayName"] = "  A  " }, kept: true},
		{name: "empty description", mod: func(m map[string]any) { m["description"] = " " }, warning: "catalog.items[0].description must not be empty."},
		{name: "missing id", mod: func(m map[string]any) { delete(m, "extensionId") }, warning: "catalog.items[0].extensionId must not be empty."},
		{name: "featured not bool", mod: func(m map[string]any) { m["featured"] = "yes" }, warning: "catalog.items[0].featured must be a boolean."},
		{name: "bad channel", mod: func(m map[string]any) { m["defaultChannel"] = "beta" }, warning: "catalog.items[0].defaultChannel has an invalid value: beta"},
		{name: "bad review", mod: func(m map[string]any) { m["defaultReviewStatus"] = "ok" }, warning: "catalog.items[0].defaultReviewStatus has an invalid value: ok"},
		{name: "no hosts", mod: func(m map[string]any) { m["supportedHosts"] = []any{} }, warning: "catalog.items[0].supportedHosts requires at least one host."},
		{name: "bad host", mod: func(m map[string]any) { m["supportedHosts"] = []any{"web"} }, warning: "catalog.items[0].supportedHosts has an invalid value: web"},
		{name: "blank keyword", mod: func(m map[string]any) { m["keywords"] = []any{"x", ""} }, warning: "catalog.items[0].keywords[1] must not be empty."},
		{name: "author not string dropped", mod: func(m map[string]any) { m["author"] = 7 }, kept: true},
		{name: "unknown status kept", mod: func(m map[string]any) { m["status"] = "quarantined" }, warning: `unknown status "quarantined"`, kept: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			good := itemJSON(func(m map[string]any) { m["extensionId"] = "z.z"; m["packageName"] = "z-z" })
			doc := `{"schemaVersion":1,"items":[` + itemJSON(tt.mod) + `,` + good + `]}`
			c, err := ParseCatalog([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			wantItems := 1
			if tt.kept {
				wantItems = 2
			}
			if len(c.Items) != wantItems {
				t.Fatalf("%d items, warnings %v", len(c.Items), c.Warnings)
			}
			if tt.warning == "" {
				if len(c.Warnings) != 0 {
					t.Fatalf("warnings %v", c.Warnings)
				}
				return
			}
			if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].Message, tt.warning) {
				t.Fatalf("warnings %v, want %q", c.Warnings, tt.warning)
			}
		})
	}
}

func TestParseDocumentErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
		detail          bool
	}{
		{name: "not json", doc: `{`, want: "not valid JSON"},
		{name: "array", doc: `[]`, want: "marketplace catalog must be an object."},
		{name: "no schema", doc: `{"items":[]}`, want: "catalog.schemaVersion must be a number."},
		{name: "schema 2", doc: `{"schemaVersion":2,"items":[]}`, want: "Only marketplace catalog schemaVersion=1 is supported, got 2"},
		{name: "items object", doc: `{"schemaVersion":1,"items":{}}`, want: "catalog.items must be an array."},
		{name: "detail no versions", doc: `{"schemaVersion":1,"versions":[]}`, want: "marketplace detail.versions must not be empty.", detail: true},
		{name: "detail versions all bad", doc: `{"schemaVersion":1,"versions":[{"version":"1"}]}`, want: "marketplace detail.versions must not be empty.", detail: true},
		{name: "detail root field", doc: `{"schemaVersion":1,"versions":[{"version":"1.0.0","channel":"stable","reviewStatus":"verified","displayName":"A","description":"d","supportedHosts":["cli"]}]}`,
			want: "detail.extensionId must not be empty.", detail: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.detail {
				_, err = ParseDetail([]byte(tt.doc))
			} else {
				_, err = ParseCatalog([]byte(tt.doc))
			}
			if !errors.Is(err, ErrBadDocument) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

func TestParseDetailVersions(t *testing.T) {
	doc := `{"schemaVersion":1,"extensionId":"a.b","packageName":"a-b","status":"listed","featured":false,
	"defaultVersion":"1.0.0","readmePath":"r.md","versions":[
	{"version":"1.0.0","channel":"stable","reviewStatus":"verified","displayName":"A","description":"d","supportedHosts":["cli"]},
	{"version":"1.0.0","channel":"stable","reviewStatus":"verified","displayName":"A","description":"d","supportedHosts":["cli"]},
	{"version":"2.0.0","channel":"stable","reviewStatus":"verified","displayName":"A","description":"d","supportedHosts":["cli"],"changelog":{"summary":""}},
	{"version":"3.0.0","channel":"stable","reviewStatus":"verified","displayName":"A","description":"d","supportedHosts":["cli"],"changelog":"ignored"}]}`
	d, err := ParseDetail([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Versions) != 2 || d.Versions[1].Version != "3.0.0" || d.Versions[1].Changelog != nil || len(d.Warnings) != 2 ||
		!strings.Contains(d.Warnings[0].Message, "duplicate version 1.0.0") ||
		!strings.Contains(d.Warnings[1].Message, "detail.versions[2].changelog.summary must not be empty.") {
		t.Fatalf("detail %+v", d)
	}
}

func TestChooseAndHighest(t *testing.T) {
	d := &Detail{ExtensionID: "x.y", DefaultVersion: "1.0.0", Versions: []Version{
		{Version: "1.0.0", Channel: "stable", ReviewStatus: "verified", SupportedHosts: []string{"cli"}},
		{Version: "1.10.0", Channel: "stable", ReviewStatus: "verified", SupportedHosts: []string{"desktop"}},
		{Version: "1.9.0", Channel: "stable", ReviewStatus: "verified", SupportedHosts: []string{"cli"}},
		{Version: "1.11.0", Channel: "stable", ReviewStatus: "revoked", SupportedHosts: []string{"cli"}},
		{Version: "not-semver", Channel: "stable", ReviewStatus: "verified", SupportedHosts: []string{"cli"}},
		{Version: "2.0.0-rc.1", Channel: "preview", ReviewStatus: "verified", SupportedHosts: []string{"cli"}},
	}}
	tests := []struct {
		name          string
		channel, host string
		withRevoked   bool
		want          string
	}{
		{"semver not string order", "stable", "", false, "1.10.0"},
		{"host filter", "stable", "cli", false, "1.9.0"},
		{"revoked included", "stable", "cli", true, "1.11.0"},
		{"preview", "preview", "cli", false, "2.0.0-rc.1"},
		{"none", "experimental", "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if v := Highest(d, tt.channel, tt.host, tt.withRevoked); v != nil {
				got = v.Version
			}
			if got != tt.want {
				t.Fatalf("got %q want %q", got, tt.want)
			}
		})
	}
	if v, err := Choose(d, Selector{Version: "not-semver"}); err != nil || v.Version != "not-semver" {
		t.Fatalf("exact non-semver: %v %v", v, err)
	}
	if v, err := Choose(d, Selector{}); err != nil || v.Version != "1.0.0" {
		t.Fatalf("default: %v %v", v, err)
	}
	if Newer("1.10.0", "1.9.0") != true || Newer("1.0.0", "1.0.0") || Newer("x", "1.0.0") {
		t.Fatal("Newer")
	}
}

func TestSearch(t *testing.T) {
	items := []Item{
		{ExtensionID: "a.one", PackageName: "@a/one", Status: "listed", DisplayName: "First Tool", Description: "Does things", Keywords: []string{"Alpha"}, Author: "Ada"},
		{ExtensionID: "a.two", PackageName: "@a/two", Status: "hidden", DisplayName: "Second", Description: "Ünïcode ÄBC"},
		{ExtensionID: "a.three", PackageName: "@a/three", Status: "blocked", DisplayName: "Third", Description: "x"},
		{ExtensionID: "a.four", PackageName: "@a/four", Status: "deprecated", DisplayName: "Fourth", Description: "old tool"},
	}
	tests := []struct {
		name, q string
		all     bool
		want    []string
	}{
		{"all listed", "", false, []string{"a.one", "a.four"}},
		{"with --all", "", true, []string{"a.one", "a.two", "a.three", "a.four"}},
		{"case folded", "TOOL", false, []string{"a.one", "a.four"}},
		{"author", "ada", false, []string{"a.one"}},
		{"keyword", "alpha", false, []string{"a.one"}},
		{"package", "@a/f", false, []string{"a.four"}},
		{"words joined", "first   tool", false, []string{"a.one"}},
		{"across fields", "tool does", false, []string{"a.one"}},
		{"unicode", "äbc", true, []string{"a.two"}},
		{"no match", "zzz", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, it := range Search(items, tt.q, tt.all) {
				got = append(got, it.ExtensionID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("got %v want %v", got, tt.want)
			}
		})
	}
}

func FuzzParseCatalog(f *testing.F) {
	f.Add(mustRead(f, filepath.Join(referenceRoot, "catalog.json")))
	f.Add(mustRead(f, filepath.Join(fixtureRoot, "catalog.json")))
	f.Add([]byte(`{"schemaVersion":1,"items":[1,null,{},[]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCatalog(data)
		if err != nil {
			if !errors.Is(err, ErrBadDocument) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, it := range c.Items {
			if it.ExtensionID == "" || it.PackageName == "" || len(it.SupportedHosts) == 0 || seen[it.ExtensionID] {
				t.Fatalf("item breaks the rules: %+v", it)
			}
			seen[it.ExtensionID] = true
		}
		_ = Search(c.Items, "a b", true)
	})
}

func FuzzParseDetail(f *testing.F) {
	f.Add(mustRead(f, filepath.Join(referenceRoot, "extensions/spiritagent.system-message-demo/detail.json")))
	f.Add(mustRead(f, filepath.Join(fixtureRoot, "extensions/fixture.hello/detail.json")))
	f.Add([]byte(`{"schemaVersion":1,"versions":[{"changelog":{}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDetail(data)
		if err != nil {
			if !errors.Is(err, ErrBadDocument) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if len(d.Versions) == 0 || d.ExtensionID == "" {
			t.Fatalf("detail breaks the rules: %+v", d)
		}
		for _, ch := range channels {
			_ = Highest(d, ch, "cli", false)
		}
		_, _ = Choose(d, Selector{Channel: "stable"})
	})
}
