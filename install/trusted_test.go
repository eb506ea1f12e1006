package install_test

import (
	"context"
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
