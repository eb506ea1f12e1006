// Command fileproxy writes the module of a git checkout, as one version,
// into a module proxy on the file system (GOPROXY=file://DIR), laid out as
// the go command reads it: MODULE/@v/list, VERSION.info, VERSION.mod and
// VERSION.zip. scripts/test-goinstall.sh installs this checkout from it
// with `go install MODULE/cmd/spirit@VERSION`, offline.
//
//	fileproxy -version v1.2.3 -out DIR [CHECKOUT]
//
// The files are those git sees in CHECKOUT (tracked and untracked, not
// ignored; deleted ones left out), so the zip is the checkout as it is,
// uncommitted edits included, without build outputs. golang.org/x/mod/zip,
// the go command's own code, makes the zip and applies its rules (names,
// sizes, nested modules and vendor directories left out). The version's
// time is the time of the checkout's HEAD commit.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

func main() {
	version := flag.String("version", "", "the module version to publish, such as v1.2.3")
	out := flag.String("out", "", "the proxy's directory (GOPROXY=file://DIR)")
	flag.Parse()
	dir := "."
	if flag.NArg() == 1 {
		dir = flag.Arg(0)
	}
	if *version == "" || *out == "" || flag.NArg() > 1 {
		fmt.Fprintln(os.Stderr, "usage: fileproxy -version VERSION -out DIR [CHECKOUT]")
		os.Exit(2)
	}
	if err := publish(dir, *version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "fileproxy:", err)
		os.Exit(1)
	}
}

func publish(dir, version, out string) error {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	path := modfile.ModulePath(gomod)
	if path == "" {
		return fmt.Errorf("%s: no module line", filepath.Join(dir, "go.mod"))
	}
	mv := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return err
	}
	files, err := checkoutFiles(dir)
	if err != nil {
		return err
	}
	escPath, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	escVersion, err := module.EscapeVersion(version)
	if err != nil {
		return err
	}
	vdir := filepath.Join(out, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	var zip bytes.Buffer
	if err := modzip.Create(&zip, mv, files); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, headTime(dir)})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		escVersion + ".zip":  zip.Bytes(),
		escVersion + ".mod":  gomod,
		escVersion + ".info": info,
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			return err
		}
	}
	list, err := os.OpenFile(filepath.Join(vdir, "list"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(list, version); err != nil {
		list.Close()
		return err
	}
	return list.Close()
}

// checkoutFiles lists the files git sees in dir: tracked and untracked,
// not ignored, and present on disk.
func checkoutFiles(dir string) ([]modzip.File, error) {
	cmd := exec.Command("git", "-C", dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Stderr = os.Stderr
	listed, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the files of %s with git ls-files: %w", dir, err)
	}
	var files []modzip.File
	for _, name := range strings.Split(string(listed), "\x00") {
		if name == "" {
			continue
		}
		f := checkoutFile{dir: dir, name: name}
		if _, err := f.Lstat(); errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not yet committed
		}
		files = append(files, f)
	}
	return files, nil
}

// headTime is the time of dir's HEAD commit, or now when there is none.
func headTime(dir string) time.Time {
	out, err := exec.Command("git", "-C", dir, "log", "-1", "--format=%cI").Output()
	if err == nil {
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(out))); err == nil {
			return t.UTC()
		}
	}
	return time.Now().UTC().Truncate(time.Second)
}

// checkoutFile is a file of the checkout, named by its slash path.
type checkoutFile struct{ dir, name string }

func (f checkoutFile) Path() string { return f.name }

func (f checkoutFile) Lstat() (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(f.dir, filepath.FromSlash(f.name)))
}

func (f checkoutFile) Open() (io.ReadCloser, error) {
	return os.Open(filepath.Join(f.dir, filepath.FromSlash(f.name)))
}
