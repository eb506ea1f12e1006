package pack

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

func TestCheckPath(t *testing.T) {
	tests := []struct {
		name, path string
		ok         bool
	}{
		{"plain", "index.js", true},
		{"nested", "dist/a.js", true},
		{"dotdot", "../secret", false},
		{"inner dotdot", "a/../../b", false},
		{"absolute", "/etc/passwd", false},
		{"backslash", `a\b`, false},
		{"empty", "", false},
		{"unclean", "a//b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkPath(tt.path); (err == nil) != tt.ok {
				t.Errorf("checkPath(%q) = %v", tt.path, err)
			}
		})
	}
}

func TestArchivesReproducible(t *testing.T) {
	dir := tempdir.New(t)
	write := func(name, data string, mode os.FileMode) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"name":"x"}`, 0o600)
	write("bin/run.sh", "#!/bin/sh\n", 0o700)
	files := []File{{Path: "package.json", Mode: 0o600}, {Path: "bin/run.sh", Mode: 0o700}}
	var a, b bytes.Buffer
	if err := Tgz(&a, dir, files); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	_ = os.Chtimes(filepath.Join(dir, "package.json"), later, later)
	if err := Tgz(&b, dir, []File{files[1], files[0]}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two tarballs of the same files differ")
	}
	gz, err := gzip.NewReader(&a)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var got []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(Epoch) || h.Uid != 0 || h.Uname != "" {
			t.Errorf("%s: header %+v", h.Name, h)
		}
		got = append(got, h.Name+":"+os.FileMode(h.Mode).String())
	}
	want := []string{"package/bin/run.sh:-rwxr-xr-x", "package/package.json:-rw-r--r--"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("entries = %v, want %v", got, want)
	}
	var z1, z2 bytes.Buffer
	if err := Zip(&z1, dir, files); err != nil {
		t.Fatal(err)
	}
	if err := Zip(&z2, dir, files); err != nil || !bytes.Equal(z1.Bytes(), z2.Bytes()) {
		t.Fatalf("two ZIPs differ (%v)", err)
	}
}

func TestZipRefusesSecondManifest(t *testing.T) {
	dir := tempdir.New(t)
	files := []File{{Path: "package.json"}, {Path: "node_modules/x/package.json"}}
	err := Zip(io.Discard, dir, files)
	var se *SecondManifestError
	if !errors.Is(err, ErrSecondManifest) || !errors.As(err, &se) || se.Path != "node_modules/x/package.json" {
		t.Fatalf("err = %v", err)
	}
}

func TestReadFileRefusesEscape(t *testing.T) {
	dir := tempdir.New(t)
	outside := filepath.Join(tempdir.New(t), "secret")
	if err := os.WriteFile(outside, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.js")); err != nil {
		t.Fatal(err)
	}
	if err := Tgz(io.Discard, dir, []File{{Path: "link.js"}}); err == nil {
		t.Fatal("a symlink out of the package was packed")
	}
}
