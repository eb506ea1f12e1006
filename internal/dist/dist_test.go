package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSemverOf(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "tag", in: "v1.2.3", want: "1.2.3"},
		{name: "tag without v", in: "1.2.3", want: "1.2.3"},
		{name: "prerelease tag", in: "v1.2.3-rc.1", want: "1.2.3-rc.1"},
		{name: "commits after a tag", in: "v1.2.3-4-gabc1234", want: "1.2.3-4-gabc1234"},
		{name: "dirty after a tag", in: "v1.2.3-4-gabc1234-dirty", want: "1.2.3-4-gabc1234-dirty"},
		{name: "no tag", in: "58d74b8", want: "0.0.0-g58d74b8"},
		{name: "no tag, dirty", in: "58d74b8-dirty", want: "0.0.0-g58d74b8-dirty"},
		{name: "not a version", in: "dev", want: ""},
		{name: "leading zero", in: "v01.2.3", want: ""},
		{name: "two parts", in: "v1.2", want: ""},
		{name: "empty", in: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := semverOf(tt.in)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("semverOf(%q) = %q, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("semverOf(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestUnknownTargetRefused(t *testing.T) {
	_, err := Run(context.Background(), Options{Out: t.TempDir(), Targets: []string{"plan9/386"}})
	if err == nil || !strings.Contains(err.Error(), `unknown target "plan9/386"`) {
		t.Fatalf("err = %v", err)
	}
}

// hostTarget is the release target of this machine, which the tests build
// (the six-target build is `make dist`; a test builds one to stay quick).
func hostTarget(t *testing.T) string {
	t.Helper()
	s := runtime.GOOS + "/" + runtime.GOARCH
	if !slices.Contains(AllTargets, s) {
		t.Skipf("%s is not a release target: nothing to build and run here", s)
	}
	return s
}

var (
	firstOnce sync.Once
	firstRel  *Release
	firstOut  string
	firstErr  error
)

// builtDist is one run of dist for the host target, shared by the tests.
func builtDist(t *testing.T) (*Release, string) {
	t.Helper()
	target := hostTarget(t)
	firstOnce.Do(func() {
		dir, err := os.MkdirTemp("", "spirit-dist-test-")
		if err != nil {
			firstErr = err
			return
		}
		firstOut = filepath.Join(dir, "dist")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		firstRel, firstErr = Run(ctx, Options{Out: firstOut, Targets: []string{target}, NPM: true})
	})
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	return firstRel, firstOut
}

func TestMain(m *testing.M) {
	code := m.Run()
	if firstOut != "" {
		os.RemoveAll(filepath.Dir(firstOut))
	}
	os.Exit(code)
}

// Two runs at the same commit, into different directories, give the same
// bytes; checksums.txt lists every file with its sha256.
func TestDistReproducible(t *testing.T) {
	rel, out1 := builtDist(t)
	out2 := filepath.Join(t.TempDir(), "elsewhere", "dist")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if _, err := Run(ctx, Options{Out: out2, Targets: []string{hostTarget(t)}, NPM: true}); err != nil {
		t.Fatal(err)
	}
	sums1, err := os.ReadFile(filepath.Join(out1, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sums2, err := os.ReadFile(filepath.Join(out2, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sums1, sums2) {
		t.Fatalf("two runs differ:\n%s\n---\n%s", sums1, sums2)
	}
	var listed []string
	for _, line := range strings.Split(strings.TrimSpace(string(sums1)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("checksums.txt line %q is not sha256sum format", line)
		}
		data, err := os.ReadFile(filepath.Join(out1, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: checksum %s does not match the file", name, sum)
		}
		listed = append(listed, name)
	}
	if want := rel.Files[:len(rel.Files)-1]; !slices.Equal(listed, want) {
		t.Errorf("checksums.txt lists %q, want %q", listed, want)
	}
	goos, goarch, _ := strings.Cut(hostTarget(t), "/")
	base := fmt.Sprintf("spirit_%s_%s_%s", rel.Semver, goos, goarch)
	npmT := target{goos, goarch}
	for _, want := range []string{
		base + archiveExt(goos), base + archiveExt(goos) + ".sbom.json",
		"npm/spiritagents-spirit-" + rel.Semver + ".tgz",
		"npm/spiritagents-spirit-" + npmT.npmOS() + "-" + npmT.npmCPU() + "-" + rel.Semver + ".tgz",
	} {
		if !slices.Contains(listed, want) {
			t.Errorf("checksums.txt lacks %s: %q", want, listed)
		}
	}
}

func archiveExt(goos string) string {
	if goos == "windows" {
		return ".zip"
	}
	return ".tar.gz"
}

type archived struct {
	name    string
	mode    int64
	uid     int
	modTime time.Time
	data    []byte
}

func readTarGz(t *testing.T, file string) []archived {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("%s: gzip header has name %q, time %v", file, zr.Name, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	var out []archived
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, archived{name: h.Name, mode: h.Mode, uid: h.Uid, modTime: h.ModTime, data: data})
	}
}

// The archive holds the binary, LICENSE and README.md under one folder,
// sorted, owned by root, with fixed modes and the commit's time; the
// binary in it runs and says its version and commit.
func TestArchiveContents(t *testing.T) {
	rel, out := builtDist(t)
	goos, goarch, _ := strings.Cut(hostTarget(t), "/")
	if goos == "windows" {
		t.Skip("the test reads the .tar.gz of a unix host; the .zip writer is checked by TestZipReproducible")
	}
	base := fmt.Sprintf("spirit_%s_%s_%s", rel.Semver, goos, goarch)
	entries := readTarGz(t, filepath.Join(out, base+".tar.gz"))
	var names []string
	for _, e := range entries {
		names = append(names, e.name)
		if e.uid != 0 || !e.modTime.Equal(rel.Time) {
			t.Errorf("%s: uid %d, time %v; want 0, %v", e.name, e.uid, e.modTime, rel.Time)
		}
	}
	want := []string{base + "/", base + "/LICENSE", base + "/README.md", base + "/spirit"}
	if !slices.Equal(names, want) {
		t.Fatalf("entries %q, want %q", names, want)
	}
	if entries[3].mode != 0o755 || entries[1].mode != 0o644 {
		t.Errorf("modes: spirit %o, LICENSE %o", entries[3].mode, entries[1].mode)
	}
	if !bytes.Contains(entries[1].data, []byte("MIT License")) {
		t.Errorf("LICENSE is not the MIT license")
	}
	bin := filepath.Join(t.TempDir(), "spirit")
	if err := os.WriteFile(bin, entries[3].data, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("spirit --version: %v\n%s", err, got)
	}
	if !strings.Contains(string(got), rel.Version) {
		t.Errorf("spirit --version printed %q, want the version %s", got, rel.Version)
	}

	var bom struct {
		BOMFormat, SpecVersion, SerialNumber string
		Metadata                             struct {
			Timestamp string
			Component struct {
				Name, Version, PURL string
				Hashes              []struct{ Alg, Content string }
			}
		}
		Components []struct{ Name, Version, PURL string }
	}
	data, err := os.ReadFile(filepath.Join(out, base+".tar.gz.sbom.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &bom); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(entries[3].data)
	if bom.BOMFormat != "CycloneDX" || bom.SpecVersion != "1.5" || !strings.HasPrefix(bom.SerialNumber, "urn:uuid:") ||
		bom.Metadata.Timestamp != rel.Time.Format(time.RFC3339) || bom.Metadata.Component.Version != rel.Semver ||
		len(bom.Metadata.Component.Hashes) != 1 || bom.Metadata.Component.Hashes[0].Content != hex.EncodeToString(sum[:]) {
		t.Errorf("SBOM header: %+v %+v", bom.Metadata, bom.SerialNumber)
	}
	var purls []string
	for _, c := range bom.Components {
		purls = append(purls, c.PURL)
	}
	// Modules spirit links, by their published path.
	for _, prefix := range []string{"pkg:golang/stdlib@", "pkg:golang/github.com/spf13/cobra@v"} {
		if !slices.ContainsFunc(purls, func(p string) bool { return strings.HasPrefix(p, prefix) }) {
			t.Errorf("SBOM components lack %s…: %q", prefix, purls)
		}
	}
}

// The .zip of windows targets: sorted entries, the commit's time, fixed
// modes, and the same bytes each time.
func TestZipReproducible(t *testing.T) {
	mtime := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	entries := []entry{
		{name: "spirit.exe", mode: 0o755, data: []byte("MZ binary")},
		{name: "README.md", mode: 0o644, data: []byte("# spirit\n")},
		{name: "LICENSE", mode: 0o644, data: []byte("MIT License\n")},
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.zip"), filepath.Join(dir, "b.zip")
	if err := writeZip(a, "spirit_1.0.0_windows_amd64", entries, mtime); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // a time taken from the clock would now differ
	if err := writeZip(b, "spirit_1.0.0_windows_amd64", entries, mtime); err != nil {
		t.Fatal(err)
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if !bytes.Equal(da, db) {
		t.Fatal("two zips of the same entries differ")
	}
	zr, err := zip.OpenReader(a)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if !f.Modified.Equal(mtime) {
			t.Errorf("%s: time %v, want %v", f.Name, f.Modified, mtime)
		}
	}
	want := []string{"spirit_1.0.0_windows_amd64/", "spirit_1.0.0_windows_amd64/LICENSE",
		"spirit_1.0.0_windows_amd64/README.md", "spirit_1.0.0_windows_amd64/spirit.exe"}
	if !slices.Equal(names, want) {
		t.Fatalf("entries %q, want %q", names, want)
	}
	if m := zr.File[3].Mode().Perm(); m != 0o755 {
		t.Errorf("spirit.exe mode %o", m)
	}
}
