// Package pack makes the publishable archives of an extension package: the
// npm tarball (package/ root) and the ZIP the Spirit Agent apps import (one
// package.json, at the top).
//
// Rules it keeps: the file list is npm's own (`npm pack --dry-run --json
// --ignore-scripts`), so the archives hold exactly what `npm publish` would
// publish and no lifecycle script runs; every listed path is checked to stay
// inside the package and is read through an os.Root opened on it; the bytes
// are reproducible — entries sorted by path, fixed times (npm's
// 1985-10-26T08:15:00Z), modes 0644 or 0755 (executable files), no owner
// names, gzip without name or time — so packing the same tree twice gives
// identical files; a ZIP with a second package.json is refused, as the apps
// refuse to import it.
package pack

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"time"
)

// ErrNoNPM means npm was not found; the file list comes from it.
var ErrNoNPM = errors.New("npm was not found: pack takes the file list from npm (npm pack --dry-run), install Node.js with npm or set SPIRIT_NPM to npm's path")

// ErrSecondManifest means a ZIP would hold more than one package.json.
var ErrSecondManifest = errors.New("the ZIP would hold more than one package.json")

// SecondManifestError names the extra package.json. It matches ErrSecondManifest.
type SecondManifestError struct{ Path string }

func (e *SecondManifestError) Error() string {
	return "the ZIP would hold a second package.json, " + e.Path + "; the Spirit Agent apps refuse to import a ZIP with more than one"
}

// Is makes errors.Is(err, ErrSecondManifest) true.
func (e *SecondManifestError) Is(target error) bool { return target == ErrSecondManifest }

// Epoch is the time of every entry, npm's own fixed time.
var Epoch = time.Date(1985, time.October, 26, 8, 15, 0, 0, time.UTC)

// MaxFiles bounds the file list npm may give.
const MaxFiles = 10000

// File is one file npm would publish.
type File struct {
	// Path is slash-separated, relative to the package root.
	Path string `json:"path"`
	Size int64  `json:"size"`
	Mode int64  `json:"mode"`
}

// List is what npm would publish from a package directory.
type List struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Filename is npm's tarball name ("acme-weather-1.0.0.tgz").
	Filename string `json:"filename"`
	Files    []File `json:"files"`
}

// Stem is the archive name without extension ("acme-weather-1.0.0").
func (l *List) Stem() string { return strings.TrimSuffix(l.Filename, ".tgz") }

// NPMList asks npm which files of dir it would publish. npm is the npm
// executable ("" means npm on PATH).
func NPMList(ctx context.Context, dir, npm string) (*List, error) {
	if npm == "" {
		p, err := exec.LookPath("npm")
		if err != nil {
			return nil, ErrNoNPM
		}
		npm = p
	} else if _, err := exec.LookPath(npm); err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNoNPM, err)
	}
	cmd := exec.CommandContext(ctx, npm, "pack", "--dry-run", "--json", "--ignore-scripts")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%w (%v)", ErrNoNPM, err)
		}
		return nil, fmt.Errorf("npm pack --dry-run failed in %s: %v: %s", dir, err, lastLine(stderr.String()))
	}
	return ParseList(stdout.Bytes())
}

// ParseList reads the output of `npm pack --dry-run --json`: one package,
// at most MaxFiles files, every path clean and relative, a .tgz name
// without a directory. The files come back sorted by path.
func ParseList(data []byte) (*List, error) {
	var lists []List
	if err := json.Unmarshal(data, &lists); err != nil || len(lists) != 1 {
		return nil, fmt.Errorf("npm pack --dry-run --json gave no package list: %s", lastLine(string(data)))
	}
	l := &lists[0]
	if len(l.Files) > MaxFiles {
		return nil, fmt.Errorf("npm would publish %d files, more than %d", len(l.Files), MaxFiles)
	}
	for _, f := range l.Files {
		if err := checkPath(f.Path); err != nil {
			return nil, err
		}
	}
	if l.Filename == "" || strings.ContainsAny(l.Filename, `/\`) || !strings.HasSuffix(l.Filename, ".tgz") || l.Filename == ".tgz" {
		return nil, fmt.Errorf("npm gave an unusable tarball name %q", l.Filename)
	}
	slices.SortFunc(l.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return l, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// checkPath refuses a listed path that is not a clean relative path.
func checkPath(p string) error {
	if p == "" || p == "." || path.IsAbs(p) || strings.Contains(p, `\`) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return fmt.Errorf("npm listed an unsafe path %q", p)
	}
	return nil
}

// mode is the archive mode of a file: 0755 when any execute bit is set.
func mode(m int64) int64 {
	if m&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

// Tgz writes the npm tarball of the listed files of dir to w.
func Tgz(w io.Writer, dir string, files []File) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	gz.Header.OS = 255 // unknown, whatever the packing system
	tw := tar.NewWriter(gz)
	for _, f := range sorted(files) {
		data, err := readFile(root, f)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: "package/" + f.Path, Size: int64(len(data)),
			Mode: mode(f.Mode), ModTime: Epoch, Format: tar.FormatPAX}
		if len(hdr.Name) <= 100 {
			hdr.Format = tar.FormatUSTAR
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// Zip writes the ZIP of the listed files of dir to w, package.json at the
// top. A second package.json anywhere is a *SecondManifestError.
func Zip(w io.Writer, dir string, files []File) error {
	for _, f := range files {
		if path.Base(f.Path) == "package.json" && f.Path != "package.json" {
			return &SecondManifestError{Path: f.Path}
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, f := range sorted(files) {
		data, err := readFile(root, f)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: f.Path, Method: zip.Deflate, Modified: Epoch}
		hdr.SetMode(os.FileMode(mode(f.Mode)))
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := fw.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

func sorted(files []File) []File {
	out := slices.Clone(files)
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// maxFileSize bounds one packed file.
const maxFileSize = 256 << 20

func readFile(root *os.Root, f File) ([]byte, error) {
	if err := checkPath(f.Path); err != nil {
		return nil, err
	}
	fh, err := root.Open(f.Path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", f.Path)
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("%s is larger than %d MiB", f.Path, maxFileSize>>20)
	}
	return data, nil
}

// Integrity is the sha512 SRI of data ("sha512-<base64>"), as npm and
// package-lock files write it.
func Integrity(data []byte) string {
	sum := sha512.Sum512(data)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}
