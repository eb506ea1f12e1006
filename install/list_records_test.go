package install

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// recordsSeeds are installed.json documents: what spirit writes, and
// changes to it that the token reader reads or leaves to encoding/json.
func recordsSeeds() []string {
	written := string(encodeRecords(map[string]*Record{
		"a": {ID: "a", Version: "1.0.0", DirectoryName: "pkg-YQ", Source: "https://user:pw@example.com/a.tgz", SourceKind: KindURL,
			ManifestDigest: "sha512-x", GrantedCapabilities: []string{"tool-definitions"}, InstalledAtUnixMs: 1796221755314, FirstInstalledAtUnixMs: 1},
		"b": {ID: "b", DirectoryName: "pkg-Yg", GrantedCapabilities: []string{}},
		"c": {ID: "c", InstallSource: SourceMarketplace, MarketplaceID: "m", MarketplaceIndex: "i", Channel: "stable", ReviewStatus: "ok",
			ArchiveFileName: "c.zip", ResolvedURL: "https://example.com/c", Integrity: "sha512-y", NPMRegistry: "https://r"},
	}))
	return []string{
		written,
		strings.Replace(written, `"schemaVersion": 1`, `"schemaVersion": 1.5`, 1),
		strings.Replace(written, `"schemaVersion": 1`, `"schemaVersion": null`, 1),
		strings.Replace(written, `"schemaVersion": 1`, `"schemaVersion": 99999999999999999999`, 1),
		strings.Replace(written, `"schemaVersion": 1`, `"SchemaVersion": 1`, 1),
		strings.Replace(written, `"version": "1.0.0"`, `"version": null`, 1),
		strings.Replace(written, `"version": "1.0.0"`, `"version": 1`, 1),
		strings.Replace(written, `"version": "1.0.0"`, `"Version": "2"`, 1),
		strings.Replace(written, `"version": "1.0.0"`, `"version": "1.0.0", "version": "2"`, 1),
		strings.Replace(written, `"version": "1.0.0"`, `"v\u0065rsion": "\u00e9\ud800"`, 1),
		strings.Replace(written, `"version": "1.0.0"`, `"version": "1.0.0", "other": 1`, 1),
		strings.Replace(written, `"version": "1.0.0"`, `"npmSignature": null, "provenance": {"x": 1}`, 1),
		strings.Replace(written, `"installedAtUnixMs": 1796221755314`, `"installedAtUnixMs": 1.5`, 1),
		strings.Replace(written, `"installedAtUnixMs": 1796221755314`, `"installedAtUnixMs": null`, 1),
		strings.Replace(written, `"installedAtUnixMs": 1796221755314`, `"installedAtUnixMs": -92233720368547758080`, 1),
		strings.Replace(written, `"tool-definitions"`, `null`, 1),
		strings.Replace(written, `"grantedCapabilities": [`, `"grantedCapabilities": null, "x": [`, 1),
		strings.Replace(written, `"a": {`, `"a": null, "d": {`, 1),
		strings.Replace(written, `"a": {`, `"b": {`, 1),
		strings.Replace(written, `"a": {`, `"a": [], "d": {`, 1),
		`{"schemaVersion": 1, "extensions": null}`,
		`{"schemaVersion": 1, "extensions": []}`,
		`{}`, `null`, `[]`, `{"extensions": {}} {}`, `{"extensions": {`, ``,
	}
}

// registrySeeds are extensions.json documents, likewise.
func registrySeeds() []string {
	written := string(encodeRegistry([]Entry{
		{ID: "a", DirectoryName: "pkg-YQ", InstalledAtUnixMs: 1796221755314, ArchiveFileName: "a.zip", InstallSource: SourceArchive},
		{ID: "b", DirectoryName: "pkg-Yg", InstalledAtUnixMs: 2},
		{ID: "c", DirectoryName: "pkg-Yw", InstalledAtUnixMs: 3, InstallSource: SourceMarketplace},
	}))
	return []string{
		written,
		strings.Replace(written, `"id": "b"`, `"id": null`, 1),
		strings.Replace(written, `"id": "b"`, `"id": 2`, 1),
		strings.Replace(written, `"id": "b",`, ``, 1),
		strings.Replace(written, `"id": "b"`, `"id": "a"`, 1),
		strings.Replace(written, `"id": "b"`, `"id": "b", "id": "d"`, 1),
		strings.Replace(written, `"id": "b"`, `"i\u0064": "\u00e9"`, 1),
		strings.Replace(written, `"id": "b"`, `"ID": "b"`, 1),
		strings.Replace(written, `"directoryName": "pkg-Yg"`, `"directoryName": {}`, 1),
		strings.Replace(written, `"installedAtUnixMs": 2`, `"installedAtUnixMs": 2.7e3`, 1),
		strings.Replace(written, `"installedAtUnixMs": 2`, `"installedAtUnixMs": "2"`, 1),
		strings.Replace(written, `"installedAtUnixMs": 2`, `"installedAtUnixMs": 1e999`, 1),
		strings.Replace(written, `"installedAtUnixMs": 2`, `"installedAtUnixMs": null, "extra": [1, {"x": 2}]`, 1),
		strings.Replace(written, `"archiveFileName": "a.zip"`, `"archiveFileName": 5`, 1),
		strings.Replace(written, `"entries": [`, `"entries": [null, 1, `, 1),
		strings.Replace(written, `"entries": [`, `"entries": [null, `, 1),
		strings.Replace(written, `"entries": [`, `"Entries": [`, 1),
		strings.Replace(written, `"entries": [`, `"other": 1, "entries": [`, 1),
		`{"entries": null}`, `{}`, `null`, `{"entries": []} x`, ``,
	}
}

// The token readers give what readRecords and readRegistry give, or leave
// the file to them; and they read what spirit writes.
func TestListRecordsAreReadRecords(t *testing.T) {
	dir := tempdir.New(t)
	for i, doc := range recordsSeeds() {
		_, ok := recordsTokens([]byte(doc))
		if diff := recordsDiff(t, dir, []byte(doc)); diff != "" {
			t.Errorf("records %d: (-readRecords +recordsTokens)\n%s\n%s", i, diff, doc)
		}
		if i == 0 && !ok {
			t.Errorf("recordsTokens does not read what spirit writes:\n%s", doc)
		}
	}
	for i, doc := range registrySeeds() {
		_, ok := registryTokens([]byte(doc))
		if diff := registryDiff(t, dir, []byte(doc)); diff != "" {
			t.Errorf("registry %d: (-readRegistry +registryTokens)\n%s\n%s", i, diff, doc)
		}
		if i == 0 && !ok {
			t.Errorf("registryTokens does not read what spirit writes:\n%s", doc)
		}
	}
}

// recordsTokens knows every field of Record: a record with all of them
// set (but npmSignature and provenance, which it leaves to encoding/json)
// is read by it.
func TestRecordsTokensKnowsEveryField(t *testing.T) {
	rec := &Record{}
	v := reflect.ValueOf(rec).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.String:
			f.SetString("x" + v.Type().Field(i).Name)
		case reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{"a", "b"}))
		}
	}
	data := encodeRecords(map[string]*Record{"x": rec})
	got, ok := recordsTokens(data)
	if !ok {
		t.Fatalf("recordsTokens does not read\n%s", data)
	}
	if diff := recordsDiff(t, tempdir.New(t), data); diff != "" || len(got) != 1 {
		t.Errorf("(-readRecords +recordsTokens)\n%s", diff)
	}
}

func recordsDiff(t testing.TB, dir string, data []byte) string {
	got, ok := recordsTokens(data)
	if !ok {
		return ""
	}
	file := filepath.Join(dir, "installed.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return cmp.Diff(readRecords(file), got)
}

func registryDiff(t testing.TB, dir string, data []byte) string {
	got, ok := registryTokens(data)
	if !ok {
		return ""
	}
	file := filepath.Join(dir, "extensions.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := readRegistry(file)
	if err != nil {
		t.Fatal(err)
	}
	return cmp.Diff(want, got)
}

func FuzzRecordsTokens(f *testing.F) {
	for _, doc := range recordsSeeds() {
		f.Add([]byte(doc))
	}
	dir := tempdir.New(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if diff := recordsDiff(t, dir, data); diff != "" {
			t.Fatalf("(-readRecords +recordsTokens)\n%s", diff)
		}
	})
}

func FuzzRegistryTokens(f *testing.F) {
	for _, doc := range registrySeeds() {
		f.Add([]byte(doc))
	}
	dir := tempdir.New(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if diff := registryDiff(t, dir, data); diff != "" {
			t.Fatalf("(-readRegistry +registryTokens)\n%s", diff)
		}
	})
}
