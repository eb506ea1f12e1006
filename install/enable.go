package install

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spiritagents/spirit/internal/atomicfile"
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/paths"
)

// Errors of Enable, Disable and of an install over a disabled extension.
var (
	ErrDisabled    = errors.New("extension is disabled")
	ErrNotDisabled = errors.New("extension is not disabled")
)

// DisabledError refuses an operation that needs id enabled.
type DisabledError struct{ ID string }

func (e *DisabledError) Error() string { return e.ID + " is disabled" }

// Is matches ErrDisabled.
func (e *DisabledError) Is(target error) bool { return target == ErrDisabled }

// disabledMeta is kept beside a disabled package: the extensions.json
// entry that Enable puts back as it was.
type disabledMeta struct {
	Entry *Entry `json:"entry,omitempty"`
}

func disabledMetaFile(p *paths.Paths, id string) string {
	return p.DisabledPackageDir(id) + ".json"
}

// Disable takes id out of the apps' view and spirit's runtime, keeping its
// files, version, record, settings and secrets: its package moves from the
// host tree into .spirit/disabled/ and its entry out of extensions.json.
// The steps are ordered so that a killed run is completed or undone by the
// next locked command (tidyDisabled): the entry is saved beside the
// disabled folder first, then the folder is renamed (the commit point),
// then extensions.json is rewritten.
func (in *Installer) Disable(ctx context.Context, id string) (*Installed, error) {
	unlock, err := in.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	p := in.Paths
	found, err := Find(p, id)
	if err != nil {
		return nil, err
	}
	if found.Disabled {
		return found, nil
	}
	if found.Dir != p.PackageDir(found.ID) {
		return nil, fmt.Errorf("%s is installed in %s, not in its own folder %s; spirit disables only what it can put back", found.ID, found.Dir, p.PackageDir(found.ID))
	}
	reg, err := readRegistry(p.RegistryFile())
	if err != nil {
		return nil, err
	}
	var entry *Entry
	for i := range reg {
		if reg[i].ID == found.ID {
			entry = &reg[i]
		}
	}
	if err := os.MkdirAll(p.DisabledDir(), 0o755); err != nil {
		return nil, err
	}
	meta, _ := json.MarshalIndent(disabledMeta{Entry: entry}, "", "  ")
	if err := atomicfile.WriteDurable(disabledMetaFile(p, found.ID), append(meta, '\n'), 0o644); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		_ = os.Remove(disabledMetaFile(p, found.ID))
		return nil, err
	}
	if err := moveDir(found.Dir, p.DisabledPackageDir(found.ID)); err != nil {
		_ = os.Remove(disabledMetaFile(p, found.ID))
		return nil, err
	}
	if err := in.writeEntry(found.ID, nil); err != nil {
		return nil, err
	}
	found.Dir, found.Disabled = p.DisabledPackageDir(found.ID), true
	return found, nil
}

// Enable puts a disabled id back where it was, with its extensions.json
// entry as it was: the folder is renamed back (the commit point), then the
// entry is written, then the saved entry is deleted.
func (in *Installer) Enable(ctx context.Context, id string) (*Installed, error) {
	unlock, err := in.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	p := in.Paths
	found, err := Find(p, id)
	if err != nil {
		return nil, err
	}
	if !found.Disabled {
		return found, nil
	}
	target := p.PackageDir(found.ID)
	if _, err := os.Lstat(target); err == nil {
		return nil, fmt.Errorf("%s was installed again while disabled (%s); remove one of them first", found.ID, target)
	}
	meta := readDisabledMeta(p, found.ID)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := moveDir(found.Dir, target); err != nil {
		return nil, err
	}
	if err := in.finishEnable(found.ID, meta); err != nil {
		return nil, err
	}
	found.Dir, found.Disabled = target, false
	if meta.Entry != nil {
		found.Entry = meta.Entry
	}
	return found, nil
}

func readDisabledMeta(p *paths.Paths, id string) disabledMeta {
	var meta disabledMeta
	if data, err := os.ReadFile(disabledMetaFile(p, id)); err == nil {
		_ = json.Unmarshal(data, &meta)
	}
	return meta
}

// finishEnable writes the saved entry of id (or a new one) into
// extensions.json, then deletes the saved entry.
func (in *Installer) finishEnable(id string, meta disabledMeta) error {
	e := meta.Entry
	if e == nil || e.ID != id {
		e = &Entry{ID: id, DirectoryName: paths.PackageDirName(id), InstalledAtUnixMs: in.now().UnixMilli(), InstallSource: SourceArchive}
	}
	if err := in.writeEntry(id, e); err != nil {
		return err
	}
	return os.Remove(disabledMetaFile(in.Paths, id))
}

// writeEntry puts e (nil: none) as id's entry into extensions.json,
// leaving installed.json alone.
func (in *Installer) writeEntry(id string, e *Entry) error {
	reg, err := readRegistry(in.Paths.RegistryFile())
	if err != nil {
		return err
	}
	out := make([]Entry, 0, len(reg)+1)
	for _, x := range reg {
		if x.ID != id {
			out = append(out, x)
		}
	}
	if e != nil {
		out = append(out, *e)
	}
	return atomicfile.WriteDurable(in.Paths.RegistryFile(), encodeRegistry(out), 0o644)
}

// tidyDisabled completes or undoes what a killed Disable or Enable left:
//   - a disabled folder: its entry must not be in extensions.json;
//   - a saved entry whose folder is back in the host tree: the entry is
//     written when extensions.json lacks it, then the saved entry deleted;
//   - a saved entry with no folder anywhere: deleted.
func (in *Installer) tidyDisabled() {
	p := in.Paths
	ents, err := os.ReadDir(p.DisabledDir())
	if err != nil {
		return
	}
	reg, _ := readRegistry(p.RegistryFile())
	hasEntry := map[string]bool{}
	for _, e := range reg {
		hasEntry[e.DirectoryName] = true
	}
	for _, de := range ents {
		name, isMeta := strings.CutSuffix(de.Name(), ".json")
		if !isMeta {
			continue
		}
		id, err := idOfDirName(name)
		if err != nil {
			continue
		}
		if _, err := os.Lstat(filepath.Join(p.DisabledDir(), name)); err == nil {
			if hasEntry[name] {
				_ = in.writeEntry(id, nil)
			}
			continue
		}
		if _, err := os.Lstat(p.PackageDir(id)); err == nil {
			if hasEntry[name] {
				_ = os.Remove(filepath.Join(p.DisabledDir(), de.Name()))
			} else {
				_ = in.finishEnable(id, readDisabledMeta(p, id))
			}
			continue
		}
		_ = os.Remove(filepath.Join(p.DisabledDir(), de.Name()))
	}
}

// ListDisabled returns the disabled extensions, with Disabled set and Dir
// their folder under .spirit/disabled, sorted as List sorts.
func ListDisabled(p *paths.Paths) ([]Installed, error) {
	ents, err := os.ReadDir(p.DisabledDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	recs := readRecords(p.InstalledFile())
	var out []Installed
	for _, de := range ents {
		if !de.IsDir() {
			continue
		}
		id, err := idOfDirName(de.Name())
		if err != nil {
			continue
		}
		full := filepath.Join(p.DisabledDir(), de.Name())
		data, err := os.ReadFile(filepath.Join(full, "package.json"))
		if err != nil {
			continue
		}
		in := Installed{ID: id, Dir: full, Disabled: true}
		m, warnings, verr := loadInstalled(data, manifest.DirFS(full), manifest.Options{Installed: true})
		in.Warnings = warnings
		if verr != nil {
			in.Broken = verr
		} else {
			in.Manifest = m
		}
		if meta := readDisabledMeta(p, id); meta.Entry != nil {
			in.Entry, in.InstalledAtUnixMs = meta.Entry, meta.Entry.InstalledAtUnixMs
		}
		if r := recs[id]; r != nil {
			in.Record = r
			if stale(r, in.Version(), data) {
				in.Record, in.StaleRecord = nil, r
			}
		}
		out = append(out, in)
	}
	sortInstalled(out)
	return out, nil
}

// idOfDirName is the id whose folder is pkg-<base64url(id)>.
func idOfDirName(name string) (string, error) {
	enc, ok := strings.CutPrefix(name, "pkg-")
	if !ok {
		return "", fmt.Errorf("%s is not a package folder name", name)
	}
	id, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || paths.PackageDirName(string(id)) != name {
		return "", fmt.Errorf("%s is not a package folder name", name)
	}
	return string(id), nil
}
