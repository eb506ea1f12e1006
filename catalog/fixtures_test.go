package catalog

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/testutil/golden"
)

// fixtureRoot is the registry tree the tests (and the scripts) read.
const fixtureRoot = "../testdata/catalog/registry"

// fxVersion is one version of a fixture extension.
type fxVersion struct {
	version, channel, review string
	hosts                    []string
	caps                     []string
	// pkgName/pkgVersion override what the tarball's package.json says.
	pkgName, pkgVersion string
	tampered            bool // integrity of other bytes
	sha1Only            bool
	extra               map[string]any // more spiritExtension fields
}

type fxExtension struct {
	id, pkg, status, displayName, description string
	defaultVersion                            string
	versions                                  []fxVersion
	badVersions                               []map[string]any
}

func fixtureExtensions() []fxExtension {
	both := []string{"cli", "desktop"}
	sp := []string{"system-prompt"}
	return []fxExtension{
		{id: "fixture.hello", pkg: "@fixture/hello", status: "listed", displayName: "Hello", description: "Says hello in the system prompt.",
			defaultVersion: "1.1.0",
			versions: []fxVersion{
				{version: "0.9.0", channel: "stable", review: "revoked", hosts: both, caps: sp},
				{version: "1.0.0", channel: "stable", review: "verified", hosts: both, caps: sp},
				{version: "1.1.0", channel: "stable", review: "verified", hosts: both,
					caps: []string{"system-prompt", "tool-definitions", "tool-execution", "secret-storage"},
					extra: map[string]any{
						"activationEvents": []string{"onStartup"},
						"contributes": map[string]any{"tools": []any{map[string]any{
							"name": "greet", "description": "Greets someone.", "inputSchema": map[string]any{"type": "object"}}}},
						"secretSlots": []any{map[string]any{"key": "api-token", "title": "API token"}},
					}},
				{version: "1.2.0-beta.1", channel: "preview", review: "verified", hosts: both, caps: sp},
				{version: "2.0.0-alpha.1", channel: "experimental", review: "unverified", hosts: both, caps: sp},
			},
			badVersions: []map[string]any{{"version": "3.0.0", "channel": "nightly", "reviewStatus": "verified",
				"displayName": "Hello", "description": "x", "supportedHosts": []string{"cli"}}},
		},
		{id: "fixture.unverified", pkg: "@fixture/unverified", status: "listed", displayName: "Unverified", description: "Nobody reviewed it yet.",
			defaultVersion: "1.0.0", versions: []fxVersion{{version: "1.0.0", channel: "stable", review: "unverified", hosts: both, caps: sp}}},
		{id: "fixture.revoked", pkg: "@fixture/revoked", status: "listed", displayName: "Revoked", description: "Its review was revoked.",
			defaultVersion: "1.0.0", versions: []fxVersion{{version: "1.0.0", channel: "stable", review: "revoked", hosts: both, caps: sp}}},
		{id: "fixture.blocked", pkg: "@fixture/blocked", status: "blocked", displayName: "Blocked", description: "Blocked by the registry.",
			defaultVersion: "1.0.0", versions: []fxVersion{{version: "1.0.0", channel: "stable", review: "verified", hosts: both, caps: sp}}},
		{id: "fixture.hidden", pkg: "@fixture/hidden", status: "hidden", displayName: "Hidden", description: "Not listed.",
			defaultVersion: "1.0.0", versions: []fxVersion{{version: "1.0.0", channel: "stable", review: "verified", hosts: both, caps: sp}}},
		{id: "fixture.deprecated", pkg: "@fixture/deprecated", status: "deprecated", displayName: "Deprecated", description: "Use hello instead.",
			defaultVersion: "1.0.0", versions: []fxVersion{{version: "1.0.0", channel: "stable", review: "verified", hosts: both, caps: sp}}},
		{id: "fixture.tampered", pkg: "@fixture/tampered", status: "listed", displayName: "Tampered", description: "Its tarball was changed after publishing.",
			defaultVersion: "1.0.0", versions: []fxVersion{{version: "1.0.0", channel: "stable", review: "verified", hosts: both, caps: sp, tampered: true}}},
		{id: "fixture.impostor", pkg: "@fixture/impostor", status: "listed", displayName: "Impostor", description: "Its tarball is another package.",
			defaultVersion: "1.0.0", versions: []fxVersion{{version: "1.0.0", channel: "stable", review: "verified", hosts: both, caps: sp, pkgName: "@fixture/hello"}}},
		{id: "fixture.wrong-version", pkg: "@fixture/wrong-version", status: "listed", displayName: "Wrong version", description: "Its tarball holds another version.",
			defaultVersion: "1.0.0", versions: []fxVersion{{version: "1.0.0", channel: "stable", review: "verified", hosts: both, caps: sp, pkgVersion: "9.9.9"}}},
		{id: "fixture.desktop-only", pkg: "@fixture/desktop-only", status: "listed", displayName: "Desktop only", description: "Runs only in the desktop app.",
			defaultVersion: "1.0.0", versions: []fxVersion{{version: "1.0.0", channel: "stable", review: "verified", hosts: []string{"desktop"}, caps: sp}}},
		{id: "fixture.sha1", pkg: "@fixture/sha1", status: "listed", displayName: "Sha1 only", description: "Verified by a sha1 shasum only.",
			defaultVersion: "1.0.0", versions: []fxVersion{{version: "1.0.0", channel: "stable", review: "verified", hosts: both, caps: sp, sha1Only: true}}},
	}
}

// tgz returns a deterministic npm-style tarball of files under package/.
func tgz(t testing.TB, files map[string]string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	for _, n := range sortedStrings(names) {
		hdr := &tar.Header{Name: "package/" + n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg,
			ModTime: time.Date(1985, 10, 26, 8, 15, 0, 0, time.UTC)}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(files[n])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func packageJSON(name, version, display string, hosts, caps []string, extra map[string]any) string {
	se := map[string]any{"displayName": display, "supportedHosts": hosts, "requestedCapabilities": caps}
	for k, v := range extra {
		se[k] = v
	}
	doc := map[string]any{"name": name, "version": version, "description": display + " fixture.", "main": "index.js", "spiritExtension": se}
	b, _ := json.MarshalIndent(doc, "", "  ")
	return string(b) + "\n"
}

func sri512(b []byte) string {
	s := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(s[:])
}

func sha1hex(b []byte) string {
	s := sha1.Sum(b)
	return hex.EncodeToString(s[:])
}

func writeJSONFile(t testing.TB, file string, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeFixtureRegistry writes the fixture registry tree into root.
func writeFixtureRegistry(t testing.TB, root string) {
	var items []any
	for _, x := range fixtureExtensions() {
		var versions []any
		var def fxVersion
		for _, v := range x.versions {
			name, ver := x.pkg, v.version
			if v.pkgName != "" {
				name = v.pkgName
			}
			if v.pkgVersion != "" {
				ver = v.pkgVersion
			}
			data := tgz(t, map[string]string{
				"package.json": packageJSON(name, ver, x.displayName, v.hosts, v.caps, v.extra),
				"index.js":     "export function activate() {}\n",
			})
			file := "tarballs/" + strings.TrimPrefix(strings.ReplaceAll(x.pkg, "/", "-"), "@") + "-" + v.version + ".tgz"
			if err := os.MkdirAll(filepath.Join(root, "tarballs"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, file), data, 0o644); err != nil {
				t.Fatal(err)
			}
			integrity, shasum := sri512(data), sha1hex(data)
			if v.tampered {
				integrity, shasum = sri512(append(data, 0)), sha1hex(append(data, 0))
			}
			dv := map[string]any{
				"version": v.version, "channel": v.channel, "reviewStatus": v.review,
				"displayName": x.displayName, "description": x.description, "author": "Fixture Co",
				"keywords":       []string{"fixture", strings.TrimPrefix(x.id, "fixture.")},
				"supportedHosts": v.hosts, "requestedCapabilities": v.caps,
				"publishedAt": "2026-01-01T00:00:00.000Z", "tarballUrl": file,
				"changelog": map[string]any{"summary": "Release " + v.version + ".", "body": "- Release " + v.version + "."},
			}
			if v.sha1Only {
				dv["shasum"] = shasum
			} else {
				dv["integrity"], dv["shasum"] = integrity, shasum
			}
			versions = append(versions, dv)
			if v.version == x.defaultVersion {
				def = v
			}
		}
		for _, b := range x.badVersions {
			versions = append(versions, b)
		}
		dir := "extensions/" + x.id
		writeJSONFile(t, filepath.Join(root, dir, "detail.json"), map[string]any{
			"schemaVersion": 1, "extensionId": x.id, "packageName": x.pkg, "status": x.status, "featured": false,
			"defaultVersion": x.defaultVersion, "defaultReviewStatus": def.review, "readmePath": dir + "/README.md",
			"versions": versions,
		})
		readme := "# " + x.displayName + "\n\n" + x.description + "\n"
		if err := os.WriteFile(filepath.Join(root, dir, "README.md"), []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
		items = append(items, map[string]any{
			"extensionId": x.id, "packageName": x.pkg, "status": x.status, "featured": x.id == "fixture.hello",
			"defaultVersion": x.defaultVersion, "defaultChannel": def.channel, "defaultReviewStatus": def.review,
			"detailPath": dir + "/detail.json", "displayName": x.displayName, "description": x.description,
			"author": "Fixture Co", "keywords": []string{"fixture", strings.TrimPrefix(x.id, "fixture.")},
			"supportedHosts": def.hosts, "requestedCapabilities": def.caps,
		})
	}
	// A broken item: it must be skipped with a warning, the rest kept.
	items = append(items, map[string]any{
		"extensionId": "fixture.bad", "status": "listed", "featured": false, "defaultVersion": "1.0.0",
		"defaultChannel": "stable", "defaultReviewStatus": "verified", "detailPath": "extensions/fixture.bad/detail.json",
		"displayName": "Bad", "description": "Has no packageName.", "supportedHosts": []string{"cli"},
	})
	writeJSONFile(t, filepath.Join(root, "catalog.json"), map[string]any{"schemaVersion": 1, "items": items})
}

// TestFixtureRegistry regenerates testdata/catalog/registry with -update,
// and otherwise checks that every digest in it matches its tarball (but
// the tampered one, which must not).
func TestFixtureRegistry(t *testing.T) {
	if golden.Updatable(fixtureRoot) {
		if err := os.RemoveAll(fixtureRoot); err != nil {
			t.Fatal(err)
		}
		writeFixtureRegistry(t, fixtureRoot)
	}
	cat, err := ParseCatalog(mustRead(t, filepath.Join(fixtureRoot, "catalog.json")))
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Items) != len(fixtureExtensions()) || len(cat.Warnings) != 1 {
		t.Fatalf("items %d, warnings %v", len(cat.Items), cat.Warnings)
	}
	for _, it := range cat.Items {
		d, err := ParseDetail(mustRead(t, filepath.Join(fixtureRoot, it.DetailPath)))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range d.Versions {
			data := mustRead(t, filepath.Join(fixtureRoot, v.TarballURL))
			ok := v.Shasum == sha1hex(data) && (v.Integrity == "" || v.Integrity == sri512(data))
			if ok == (it.ExtensionID == "fixture.tampered") {
				t.Errorf("%s@%s: digests match = %v", it.ExtensionID, v.Version, ok)
			}
		}
	}
}

func mustRead(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
