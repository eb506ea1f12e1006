package cli

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/paths"
)

// devFlagUsage is the help of --dev on every command that takes it.
const devFlagUsage = "run the extension package in this directory as if installed (repeatable)"

// maxDevFiles bounds the fingerprint walk of one --dev directory; files
// past it are not watched.
const maxDevFiles = 10000

// devPackages are the --dev package directories of one command: each is
// loaded as if installed (same id, invocation names and settings),
// shadowing an installed copy of its id, and nothing is written into the
// install tree. Its secrets are its own, by folder (devSecretAccount): a
// folder that takes the id of an install never gets that install's secrets. Before each use the host asks for stamp, a fingerprint of
// the files (paths, sizes, mtimes); when it changed, the list is read
// again and a running extension whose fingerprint changed is disposed and
// started fresh.
type devPackages struct {
	p     *paths.Paths
	dirs  []string // absolute
	start int64    // when this run began (Unix ms): a new dev id's first install

	mu  sync.Mutex
	ids map[string]string // dir → last valid id, for a package that broke
}

// withDev validates the --dev directories and points opts at them. Errors
// stop it with the validate output on errOut; warnings are printed once.
func withDev(errOut io.Writer, p *paths.Paths, dirs []string, opts *exthost.Options) error {
	if len(dirs) == 0 {
		return nil
	}
	d := &devPackages{p: p, start: time.Now().UnixMilli(), ids: map[string]string{}}
	var reports []ValidationReport
	bad := false
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		rep := validatePath(abs, manifest.Options{Host: string(p.Host)})
		rep.Path = dir
		reports = append(reports, rep)
		if rep.Error != "" {
			return fmt.Errorf("--dev %s: %s", dir, rep.Error)
		}
		if !rep.Valid {
			bad = true
			continue
		}
		for otherDir, otherID := range d.ids {
			if otherID == rep.ID {
				return usageErrorf("--dev %s and --dev %s are the same extension, %s", otherDir, dir, rep.ID)
			}
		}
		d.dirs = append(d.dirs, abs)
		d.ids[abs] = rep.ID
	}
	if bad {
		printValidation(errOut, errOut, reports)
		return &problemsError{msg: "a --dev package is invalid; fix the errors above"}
	}
	for _, r := range reports {
		for _, pr := range r.Problems {
			termtext.Fprintf(errOut, "warning: %s: %s%s\n", r.Path, pointerPrefix(pr.Pointer), pr.Message)
		}
	}
	for _, r := range reports {
		if installedDir(p, r.ID) {
			termtext.Fprintf(errOut, "warning: --dev %s is %s, the id of an installed extension: this run uses the folder, with secrets of its own (set them with --dev, or pass --secret-env), not the installed one's\n", r.Path, r.ID)
		}
	}
	opts.List = d.list
	opts.ListStamp = d.stamp
	if opts.Secrets != nil {
		opts.Secrets.SetAccountFunc(d.secretAccount)
	}
	return nil
}

// installedDir says whether id is installed, enabled or not.
func installedDir(p *paths.Paths, id string) bool {
	for _, dir := range []string{p.PackageDir(id), p.DisabledPackageDir(id)} {
		if _, err := os.Stat(dir); err == nil {
			return true
		}
	}
	return false
}

// devSecretAccount names a secret of the --dev package in dir: spirit's own
// namespace, apart from the apps' accounts (exthost.SecretAccount) and from
// every other folder.
func devSecretAccount(dir, id, key string) string {
	return "spirit-dev::" + dir + "::" + id + "::secret::" + key
}

// secretAccount names the secrets of the run: a --dev package's in its own
// namespace, an install's as the apps name them.
func (d *devPackages) secretAccount(id, key string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, dir := range d.dirs {
		if d.ids[dir] == id {
			return devSecretAccount(dir, id, key)
		}
	}
	return exthost.SecretAccount(id, key)
}

func pointerPrefix(ptr string) string {
	if ptr == "" {
		return ""
	}
	return ptr + ": "
}

// stamp is the fingerprint of every --dev directory.
func (d *devPackages) stamp() string {
	var b strings.Builder
	for _, dir := range d.dirs {
		b.WriteString(strconv.FormatUint(fingerprint(dir), 16))
		b.WriteByte(' ')
	}
	return b.String()
}

// fingerprint hashes the path, size, mode and mtime of the files under dir
// (node_modules and .git are left out: the first is large and changes
// with npm, not with the author's edits). It costs a directory walk.
func fingerprint(dir string) uint64 {
	h := fnv.New64a()
	n := 0
	_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(h, "%s\x00err\x00", path)
			return nil
		}
		if e.IsDir() && path != dir && (e.Name() == "node_modules" || e.Name() == ".git") {
			return filepath.SkipDir
		}
		if n++; n > maxDevFiles {
			return filepath.SkipAll
		}
		fi, err := e.Info()
		if err != nil {
			return nil
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%d\x00", path, fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
		return nil
	})
	return h.Sum64()
}

// list returns the installed extensions with each --dev package in place
// of the installed copy of its id (or added at the end). A --dev package
// whose manifest broke since is listed as broken, so its tools disappear
// until it is fixed.
func (d *devPackages) list() ([]install.Installed, error) {
	exts, err := install.List(d.p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, dir := range d.dirs {
		dev := d.load(dir)
		i := indexOf(exts, dev.ID)
		if i < 0 {
			exts = append(exts, dev)
			continue
		}
		// Keep the installed copy's first install time.
		dev.Record.FirstInstalledAtUnixMs = firstInstalledAt(&exts[i], d.start)
		exts[i] = dev
	}
	return exts, nil
}

func indexOf(exts []install.Installed, id string) int {
	for i := range exts {
		if exts[i].ID == id {
			return i
		}
	}
	return -1
}

func firstInstalledAt(ext *install.Installed, def int64) int64 {
	switch {
	case ext.Record != nil && ext.Record.FirstInstalledAtUnixMs != 0:
		return ext.Record.FirstInstalledAtUnixMs
	case ext.InstalledAtUnixMs != 0:
		return ext.InstalledAtUnixMs
	}
	return def
}

// load reads the --dev package in dir as an install. Its InstalledAtUnixMs
// is the fingerprint of its files: the runtime restarts a process whose
// install time changed.
func (d *devPackages) load(dir string) install.Installed {
	stamp := int64(fingerprint(dir) >> 1)
	d.mu.Lock()
	id := d.ids[dir]
	d.mu.Unlock()
	ext := install.Installed{ID: id, Dir: dir, InstalledAtUnixMs: stamp}
	data, fsys, err := openPackage(dir)
	var r *manifest.Report
	if err == nil {
		r = manifest.Validate(data, fsys, manifest.Options{Host: string(d.p.Host)})
	}
	switch {
	case err != nil:
		ext.Broken = err
	case !r.Valid():
		ext.Broken = fmt.Errorf("--dev %s: %w", dir, r.Err())
	default:
		ext.ID, ext.Manifest = r.Manifest.ID, r.Manifest
		d.mu.Lock()
		d.ids[dir] = ext.ID
		d.mu.Unlock()
	}
	ext.Record = &install.Record{ID: ext.ID, Version: ext.Version(), InstallSource: "dev", Source: dir,
		InstalledAtUnixMs: stamp, FirstInstalledAtUnixMs: d.start}
	return ext
}
