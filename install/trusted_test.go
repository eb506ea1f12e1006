package install_test

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/install/internal/corpus"
	"github.com/spiritagents/spirit/manifest"
)

// TestListTrustsOnlyRecordedBytes: List reads a package.json whose digest
// is the one recorded at install without the schema pass, and gets the same
// manifest as a full validation; once the file changes, it is validated
// in full again, and a change that only the schema refuses makes it broken.
func TestListTrustsOnlyRecordedBytes(t *testing.T) {
	in, root := newInstaller(t)
	src := filepath.Join(root, "p.tgz")
	if err := os.WriteFile(src, corpus.Tgz(corpus.Package("package/", corpus.ID, "1.0.0", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := in.Install(context.Background(), install.Request{Path: src})
	if err != nil {
		t.Fatal(err)
	}
	list, err := install.List(in.Paths)
	if err != nil || len(list) != 1 || list[0].Broken != nil {
		t.Fatalf("list: %+v, %v", list, err)
	}
	data, err := os.ReadFile(filepath.Join(res.Dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	full := manifest.Validate(data, manifest.DirFS(res.Dir), manifest.Options{})
	if !reflect.DeepEqual(list[0].Manifest, full.Manifest) {
		t.Errorf("trusted manifest %+v\nfull validation %+v", list[0].Manifest, full.Manifest)
	}

	// A name the schema's pattern refuses (upper case), nothing else changed.
	bad := strings.Replace(string(data), `"name": "`+corpus.ID+`"`, `"name": "`+strings.ToUpper(corpus.ID)+`"`, 1)
	if bad == string(data) {
		bad = strings.Replace(string(data), `"name":"`+corpus.ID+`"`, `"name":"`+strings.ToUpper(corpus.ID)+`"`, 1)
	}
	if bad == string(data) {
		t.Fatalf("cannot find the name in %s", data)
	}
	if err := os.WriteFile(filepath.Join(res.Dir, "package.json"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err = install.List(in.Paths)
	if err != nil || len(list) != 1 || list[0].Broken == nil {
		t.Fatalf("after the change, list: %+v, %v (want it broken)", list, err)
	}
}

// TestTrustedSkipsSchema: with Trusted, the schema pass does not run (a
// name its pattern refuses passes); without, it does.
func TestTrustedSkipsSchema(t *testing.T) {
	doc := []byte(`{"name":"UPPER","version":"1.0.0","spiritExtension":{"displayName":"X","supportedHosts":["cli"]}}`)
	if rep := manifest.Validate(doc, nil, manifest.Options{}); rep.Err() == nil {
		t.Fatal("the schema accepts an upper-case name")
	}
	rep := manifest.Validate(doc, nil, manifest.Options{Trusted: true})
	if rep.Err() != nil || rep.Manifest == nil || rep.Manifest.ID != "UPPER" {
		t.Fatalf("trusted: %v, %+v", rep.Err(), rep.Manifest)
	}
}

// TestListTamperedTrustedRecord: a package.json rewritten together with the
// digest in installed.json is read without the schema pass; a tool that is
// not an object then makes the install broken, with the schema's message,
// where it used to panic.
func TestListTamperedTrustedRecord(t *testing.T) {
	in, root := newInstaller(t)
	src := filepath.Join(root, "p.tgz")
	if err := os.WriteFile(src, corpus.Tgz(corpus.Package("package/", corpus.ID, "1.0.0", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := in.Install(context.Background(), install.Request{Path: src})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(res.Dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	se, _ := doc["spiritExtension"].(map[string]any)
	if se == nil {
		t.Fatalf("no spiritExtension in %s", data)
	}
	se["contributes"] = map[string]any{"tools": []any{1}}
	se["settingsSchema"] = []any{map[string]any{"key": "k", "type": "select", "options": 7}}
	tampered, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(res.Dir, "package.json"), tampered, 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := os.ReadFile(in.Paths.InstalledFile())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(tampered)
	digest := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	var old struct {
		Extensions map[string]struct {
			ManifestDigest string `json:"manifestDigest"`
		} `json:"extensions"`
	}
	if err := json.Unmarshal(recs, &old); err != nil || old.Extensions[corpus.ID].ManifestDigest == "" {
		t.Fatalf("no recorded digest in %s (%v)", recs, err)
	}
	recs = []byte(strings.Replace(string(recs), old.Extensions[corpus.ID].ManifestDigest, digest, 1))
	if err := os.WriteFile(in.Paths.InstalledFile(), recs, 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := install.List(in.Paths)
	if err != nil || len(list) != 1 || list[0].Broken == nil {
		t.Fatalf("list: %+v, %v (want it broken)", list, err)
	}
	if got := list[0].Broken.Error(); !strings.Contains(got, "must be an object") {
		t.Errorf("broken: %s", got)
	}
}
