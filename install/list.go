package install

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"

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
func List(p *paths.Paths) ([]Installed, error) {
	dir := p.ExtensionsDir()
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	reg, err := readRegistry(p.RegistryFile())
	if err != nil {
		return nil, err
	}
	byDir := map[string]*Entry{}
	byID := map[string]*Entry{}
	for i := range reg {
		byDir[reg[i].DirectoryName] = &reg[i]
		byID[reg[i].ID] = &reg[i]
	}
	recs := readRecords(p.InstalledFile())
	var out []Installed
	for _, de := range ents {
		if !de.IsDir() || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		full := filepath.Join(dir, de.Name())
		data, err := os.ReadFile(filepath.Join(full, "package.json"))
		if err != nil {
			continue
		}
		in := Installed{Dir: full}
		// Bytes that are the ones validated at install (the record keeps
		// their digest) skip the schema pass.
		trusted := false
		if e := byDir[de.Name()]; e != nil {
			r := recs[e.ID]
			trusted = r != nil && r.DirectoryName == de.Name() && r.ManifestDigest != "" && r.ManifestDigest == bytesSRI(data)
		}
		m, verr := validManifest(data, full, manifest.Options{Trusted: trusted})
		if verr != nil {
			in.Broken = verr
			switch {
			case byDir[de.Name()] != nil:
				in.ID = byDir[de.Name()].ID
			case strings.HasPrefix(de.Name(), "pkg-"):
				id, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(de.Name(), "pkg-"))
				if err != nil {
					continue
				}
				in.ID = string(id)
			default:
				continue
			}
		} else {
			in.ID, in.Manifest = m.ID, m
		}
		if e := byID[in.ID]; e != nil {
			in.Entry = e
			in.InstalledAtUnixMs = e.InstalledAtUnixMs
		} else if fi, err := de.Info(); err == nil {
			in.InstalledAtUnixMs = fi.ModTime().UnixMilli()
		}
		if r := recs[in.ID]; r != nil && r.DirectoryName == de.Name() {
			in.Record = r
		}
		out = append(out, in)
	}
	sortInstalled(out)
	return out, nil
}

func sortInstalled(list []Installed) {
	zh := collate.New(language.SimplifiedChinese)
	en := collate.New(language.English)
	slices.SortStableFunc(list, func(a, b Installed) int {
		if c := zh.CompareString(a.DisplayName(), b.DisplayName()); c != 0 {
			return c
		}
		return en.CompareString(a.ID, b.ID)
	})
}

// Find returns the install of id (exact match, like the reference).
func Find(p *paths.Paths, id string) (*Installed, error) {
	list, err := List(p)
	if err != nil {
		return nil, err
	}
	for i := range list {
		if list[i].ID == id && list[i].Dir == p.PackageDir(id) {
			return &list[i], nil
		}
	}
	for i := range list {
		if list[i].ID == id {
			return &list[i], nil
		}
	}
	return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
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
