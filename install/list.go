package install

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/spiritagents/spirit/internal/collate"
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/paths"
)

// Installed is one installed extension as found on disk.
type Installed struct {
	ID  string
	Dir string // absolute pkg-<b64> directory
	// Manifest is nil when Broken.
	Manifest *manifest.Manifest
	// Broken says why the manifest no longer parses; the install is still
	// listed and still removable.
	Broken            error
	InstalledAtUnixMs int64
	// Entry is the extensions.json entry, nil if none.
	Entry *Entry
	// Record is spirit's .spirit/installed.json record, nil if none.
	Record *Record
	// Warnings are what spirit's install would refuse and the apps accept
	// (a tool schema that is not a JSON Schema, duplicate tool names): the
	// install is used as the apps use it, and these are shown.
	Warnings []string
	// StaleRecord is spirit's record when it no longer describes the
	// installed package (the apps replaced it); Record is then nil.
	StaleRecord *Record
	// Disabled is set for an extension kept in .spirit/disabled (Dir):
	// out of the apps' view and spirit's runtime (ListDisabled).
	Disabled bool
}

// DisplayName is the manifest's displayName, or the id when broken.
func (in *Installed) DisplayName() string {
	if in.Manifest != nil && in.Manifest.Name != "" {
		return in.Manifest.Name
	}
	return in.ID
}

// Version is the manifest's version, else the recorded one.
func (in *Installed) Version() string {
	if in.Manifest != nil {
		return in.Manifest.Version
	}
	if in.Record != nil {
		return in.Record.Version
	}
	return ""
}

// ErrNotFound is returned when no install has the id.
var ErrNotFound = errors.New("Extension not found")

// List returns every install of the host, sorted as the reference lists
// them: by display name (Chinese collation), then by id (English
// collation). It reads only: no lock, no healing of extensions.json.
//
// Like the reference it lists every direct subdirectory (not a symlink)
// that holds a package.json. Unlike it, an install whose manifest no longer
// validates is listed with Broken set, its id taken from extensions.json or
// from its pkg-<base64url(id)> name.
func List(p *paths.Paths) ([]Installed, error) { return list(p, false) }

// list is List; brief leaves the tools' schemas out of the manifests whose
// bytes are the recorded ones (ListAllBrief).
func list(p *paths.Paths, brief bool) ([]Installed, error) {
	dir := p.ExtensionsDir()
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// spirit's records are read while extensions.json is.
	var recs map[string]*Record
	var records sync.WaitGroup
	records.Go(func() { recs = listRecords(p.InstalledFile()) })
	reg, err := listRegistry(p.RegistryFile())
	records.Wait()
	if err != nil {
		return nil, err
	}
	byDir := map[string]*Entry{}
	byID := map[string]*Entry{}
	for i := range reg {
		byDir[reg[i].DirectoryName] = &reg[i]
		byID[reg[i].ID] = &reg[i]
	}
	// The folder's path is resolved once, not once per package.
	realDir, rerr := filepath.EvalSymlinks(dir)
	if rerr != nil {
		realDir = ""
	}
	l := &lister{dir: dir, realDir: realDir, byDir: byDir, byID: byID, recs: recs, brief: brief}
	// Each package is read and checked on its own: on as many goroutines
	// as there are processors, each taking the next entry.
	found := make([]Installed, len(ents))
	ok := make([]bool, len(ents))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 1+len(ents)/listPerWorker) {
		wg.Go(func() {
			var files fileReader
			for i := int(next.Add(1)) - 1; i < len(ents); i = int(next.Add(1)) - 1 {
				found[i], ok[i] = l.load(ents[i], &files)
			}
		})
	}
	wg.Wait()
	var out []Installed
	for i := range found {
		if ok[i] {
			out = append(out, found[i])
		}
	}
	sortInstalled(out)
	return out, nil
}

// listPerWorker is how many packages make it worth one more goroutine.
const listPerWorker = 16

// lister loads the packages of one List.
type lister struct {
	dir     string
	realDir string // dir with its links resolved, "" if that failed
	byDir   map[string]*Entry
	byID    map[string]*Entry
	recs    map[string]*Record
	brief   bool
}

// fileReader reads whole files, one goroutine's: on Linux through a
// buffer it keeps.
type fileReader struct{ buf []byte }

// load reads the package of folder entry de with files; false when it is
// no install (not a folder, hidden, no package.json, or broken with no id
// to show).
func (l *lister) load(de os.DirEntry, files *fileReader) (Installed, bool) {
	if !de.IsDir() || strings.HasPrefix(de.Name(), ".") {
		return Installed{}, false
	}
	full := filepath.Join(l.dir, de.Name())
	data, err := files.read(filepath.Join(full, "package.json"))
	if err != nil {
		return Installed{}, false
	}
	in := Installed{Dir: full}
	// Bytes that are the ones validated at install (the record keeps
	// their digest) skip the schema pass.
	digest := ""
	trusted := false
	if e := l.byDir[de.Name()]; e != nil {
		if r := l.recs[e.ID]; r != nil && r.DirectoryName == de.Name() && r.ManifestDigest != "" {
			digest = bytesSRI(data)
			trusted = r.ManifestDigest == digest
		}
	}
	var fsys fs.FS
	if l.realDir != "" {
		fsys = manifest.DirFSListed(l.realDir, de.Name())
	} else {
		fsys = manifest.DirFS(full)
	}
	m, warnings, verr := loadInstalled(data, fsys, manifest.Options{Installed: true, Trusted: trusted, NoToolSchemas: l.brief})
	in.Warnings = warnings
	if verr != nil {
		in.Broken = verr
		switch {
		case l.byDir[de.Name()] != nil:
			in.ID = l.byDir[de.Name()].ID
		case strings.HasPrefix(de.Name(), "pkg-"):
			id, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(de.Name(), "pkg-"))
			if err != nil {
				return Installed{}, false
			}
			in.ID = string(id)
		default:
			return Installed{}, false
		}
	} else {
		in.ID, in.Manifest = m.ID, m
	}
	if e := l.byID[in.ID]; e != nil {
		in.Entry = e
		in.InstalledAtUnixMs = e.InstalledAtUnixMs
	} else if fi, err := de.Info(); err == nil {
		in.InstalledAtUnixMs = fi.ModTime().UnixMilli()
	}
	if r := l.recs[in.ID]; r != nil && r.DirectoryName == de.Name() {
		in.Record = r
		if staleDigest(r, in.Version(), data, digest) {
			in.Record, in.StaleRecord = nil, r
		}
	}
	return in, true
}

// sortInstalled sorts list in ListOrder. Each display name's collation
// key is worked out once, not at each of the n·log(n) comparisons, and
// the sort moves small entries, not Installed values.
func sortInstalled(list []Installed) {
	zh, en := collate.Chinese(), collate.English()
	type entry struct {
		name collate.Key
		in   *Installed
	}
	order := make([]entry, len(list))
	for i := range list {
		order[i] = entry{zh.Key(list[i].DisplayName()), &list[i]}
	}
	slices.SortStableFunc(order, func(a, b entry) int {
		if c := zh.CompareKeys(a.name, b.name); c != 0 {
			return c
		}
		return en.Compare(a.in.ID, b.in.ID)
	})
	sorted := make([]Installed, len(list))
	for i, e := range order {
		sorted[i] = *e.in
	}
	copy(list, sorted)
}

// ListOrder returns a comparison of installs in the apps' list order: by
// display name (Chinese collation), then by id (English collation). The
// function it returns is for one goroutine.
func ListOrder() func(a, b *Installed) int {
	zh, en := collate.Chinese(), collate.English()
	return func(a, b *Installed) int {
		if c := zh.Compare(a.DisplayName(), b.DisplayName()); c != 0 {
			return c
		}
		return en.Compare(a.ID, b.ID)
	}
}

// Find returns the install of id (exact match, like the reference), or
// the disabled extension id.
func Find(p *paths.Paths, id string) (*Installed, error) {
	list, err := ListAll(p)
	if err != nil {
		return nil, err
	}
	if in := exact(list, id); in != nil {
		return in, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
}

// ListAll is List followed by ListDisabled.
func ListAll(p *paths.Paths) ([]Installed, error) { return listAll(p, false) }

// ListAllBrief is ListAll for a listing that does not show the tools'
// schemas (`extension list`): the tools of a manifest whose bytes are the
// ones recorded at install have a nil InputSchema and OutputSchema, which
// spares reading each schema again from the bytes.
func ListAllBrief(p *paths.Paths) ([]Installed, error) { return listAll(p, true) }

func listAll(p *paths.Paths, brief bool) ([]Installed, error) {
	out, err := list(p, brief)
	if err != nil {
		return nil, err
	}
	dis, err := ListDisabled(p)
	if err != nil {
		return nil, err
	}
	return append(out, dis...), nil
}

// loadInstalled validates the package.json bytes of an installed package by
// the apps' rules; what only spirit's install refuses comes back as
// warnings. opts are those of an installed package (Installed set).
func loadInstalled(data []byte, fsys fs.FS, opts manifest.Options) (*manifest.Manifest, []string, error) {
	rep := manifest.Validate(data, fsys, opts)
	if err := rep.Err(); err != nil {
		return rep.Manifest, nil, err
	}
	if rep.Manifest == nil {
		return nil, nil, errors.New("package.json is not a JSON object")
	}
	var warnings []string
	if len(rep.Problems) > 0 {
		for _, pr := range manifest.Validate(data, fsys, manifest.Options{}).Errors() {
			warnings = append(warnings, "spirit would refuse to install this: "+pr.Message)
		}
	}
	return rep.Manifest, warnings, nil
}

// stale reports whether record r no longer describes the package whose
// version and package.json bytes these are: the apps replaced it.
func stale(r *Record, version string, manifestData []byte) bool {
	return staleDigest(r, version, manifestData, "")
}

// staleDigest is stale with the bytes' digest when it is known already
// (digest, else "").
func staleDigest(r *Record, version string, manifestData []byte, digest string) bool {
	if r.Version != "" && version != "" && r.Version != version {
		return true
	}
	if r.ManifestDigest == "" {
		return false
	}
	if digest == "" {
		digest = bytesSRI(manifestData)
	}
	return r.ManifestDigest != digest
}

// loadManifest validates package.json bytes against the package in dir.
func loadManifest(data []byte, dir, host string) (*manifest.Manifest, error) {
	return validManifest(data, dir, manifest.Options{Host: host})
}

// validManifest is loadManifest with every option of manifest.Validate.
func validManifest(data []byte, dir string, opts manifest.Options) (*manifest.Manifest, error) {
	rep := manifest.Validate(data, manifest.DirFS(dir), opts)
	if err := rep.Err(); err != nil {
		return rep.Manifest, err
	}
	if rep.Manifest == nil {
		return nil, errors.New("package.json is not a JSON object")
	}
	return rep.Manifest, nil
}
