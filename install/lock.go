package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/paths"
)

// LockFileVersion is the format version of spirit-lock.json that this
// spirit writes and reads.
const LockFileVersion = 1

// MaxLockFile is the largest spirit-lock.json read.
const MaxLockFile = 16 << 20

// ErrBadLock is matched by every error of ParseLock.
var ErrBadLock = errors.New("invalid lock file")

// Lock is spirit-lock.json: the extensions of one host, enough to install
// the same ones elsewhere and verify them. schemas/spirit-lock.schema.json
// documents it. Its field names are a public contract.
type Lock struct {
	LockfileVersion int    `json:"lockfileVersion"`
	Host            string `json:"host"`
	// Extensions maps an extension id (package name) to its entry;
	// encoding/json writes the keys sorted, so the file diffs well.
	Extensions map[string]LockEntry `json:"extensions"`
}

// LockEntry is one extension of a Lock.
type LockEntry struct {
	Version string `json:"version"`
	// Source is what was asked for (npm spec, marketplace:ID, URL, path);
	// Kind how it was taken (a Kind constant).
	Source string `json:"source"`
	Kind   string `json:"kind"`
	// Resolved is the artifact's URL (npm, URL, marketplace).
	Resolved string `json:"resolved,omitempty"`
	// Integrity is the sha512 SRI of the artifact (not for a directory).
	Integrity string `json:"integrity,omitempty"`
	// ManifestDigest is the sha512 SRI of the installed package.json.
	ManifestDigest   string `json:"manifestDigest"`
	NPMRegistry      string `json:"npmRegistry,omitempty"`
	MarketplaceIndex string `json:"marketplaceIndex,omitempty"`
	MarketplaceID    string `json:"marketplaceId,omitempty"`
	Channel          string `json:"channel,omitempty"`
	Enabled          bool   `json:"enabled"`
}

// BuildLock makes the lock of every install and disabled extension of
// p's host. An install that spirit has no current record of (made by the
// Spirit Agent apps, or replaced by them since) cannot be fetched again:
// it is left out and named in skipped.
func BuildLock(p *paths.Paths) (lock *Lock, skipped []string, err error) {
	list, err := ListAll(p)
	if err != nil {
		return nil, nil, err
	}
	lock = &Lock{LockfileVersion: LockFileVersion, Host: string(p.Host), Extensions: map[string]LockEntry{}}
	for i := range list {
		in := &list[i]
		r := in.Record
		kind := KindOf(r)
		if kind == "" || in.Manifest == nil || r.Version != in.Version() {
			skipped = append(skipped, in.ID)
			continue
		}
		lock.Extensions[in.ID] = LockEntry{
			Version: r.Version, Source: r.Source, Kind: kind, Resolved: r.ResolvedURL, Integrity: r.Integrity,
			ManifestDigest: r.ManifestDigest, NPMRegistry: r.NPMRegistry,
			MarketplaceIndex: r.MarketplaceIndex, MarketplaceID: r.MarketplaceID, Channel: r.Channel,
			Enabled: !in.Disabled,
		}
	}
	return lock, skipped, nil
}

// Encode writes the lock as indented JSON with a trailing newline, keys in
// a fixed order (entries sorted by id).
func (l *Lock) Encode() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(l) // only strings, ints and bools
	return buf.Bytes()
}

// IDs returns the ids of the lock, sorted.
func (l *Lock) IDs() []string {
	ids := make([]string, 0, len(l.Extensions))
	for id := range l.Extensions {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ParseLock reads spirit-lock.json bytes. Every entry is checked: a valid
// package name, a version, a known kind, sha512 SRIs where present, and an
// integrity for every kind but a directory. Unknown fields are refused, so
// a typo does not silently weaken a check.
func ParseLock(data []byte) (*Lock, error) {
	if len(data) > MaxLockFile {
		return nil, fmt.Errorf("%w: larger than %d MiB", ErrBadLock, MaxLockFile>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var l Lock
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadLock, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one JSON value", ErrBadLock)
	}
	if l.LockfileVersion != LockFileVersion {
		return nil, fmt.Errorf("%w: lockfileVersion %d, this spirit reads %d", ErrBadLock, l.LockfileVersion, LockFileVersion)
	}
	if _, err := paths.ParseHost(l.Host); err != nil {
		return nil, fmt.Errorf("%w: host %q: %v", ErrBadLock, l.Host, err)
	}
	if l.Extensions == nil {
		l.Extensions = map[string]LockEntry{}
	}
	for _, id := range l.IDs() {
		if err := l.Extensions[id].check(id); err != nil {
			return nil, fmt.Errorf("%w: extensions[%q]: %v", ErrBadLock, id, err)
		}
	}
	return &l, nil
}

func (e LockEntry) check(id string) error {
	if !npm.ValidName(id) && !npm.ValidName(strings.ToLower(id)) {
		return errors.New("not a valid package name")
	}
	if strings.TrimSpace(e.Version) == "" {
		return errors.New("version is empty")
	}
	switch e.Kind {
	case KindDir, KindArchive, KindURL, KindNPM, KindMarketplace:
	default:
		return fmt.Errorf("kind %q is none of dir, archive, url, npm, marketplace", e.Kind)
	}
	if strings.TrimSpace(e.Source) == "" {
		return errors.New("source is empty")
	}
	for name, v := range map[string]string{"integrity": e.Integrity, "manifestDigest": e.ManifestDigest} {
		if v != "" && !strings.HasPrefix(v, "sha512-") {
			return fmt.Errorf("%s %q is not a sha512 SRI", name, v)
		}
	}
	if e.ManifestDigest == "" {
		return errors.New("manifestDigest is empty")
	}
	if e.Kind != KindDir && e.Integrity == "" {
		return fmt.Errorf("a %s entry needs an integrity", e.Kind)
	}
	if e.Kind == KindMarketplace && e.MarketplaceID == "" {
		return errors.New("a marketplace entry needs a marketplaceId")
	}
	return nil
}

// Drift is one difference between a lock and what is installed.
type Drift struct {
	ID string
	// Kind is "missing", "differs", "enable", "disable" or "extra".
	Kind string
	// Installed and Locked are the versions on either side ("" for none).
	Installed, Locked string
}

func (d Drift) String() string {
	switch d.Kind {
	case "missing":
		return fmt.Sprintf("%s: missing (lock: %s)", d.ID, d.Locked)
	case "differs":
		return fmt.Sprintf("%s: installed %s differs from the lock's %s", d.ID, d.Installed, d.Locked)
	case "enable":
		return fmt.Sprintf("%s: disabled, the lock has it enabled", d.ID)
	case "disable":
		return fmt.Sprintf("%s: enabled, the lock has it disabled", d.ID)
	}
	return fmt.Sprintf("%s: installed %s, not in the lock", d.ID, d.Installed)
}

// DriftOf compares the lock with what p's host has installed, in id order.
// An install matches its entry when its recorded version, manifest digest
// and (when the lock has one) integrity are the lock's and its package
// still has that manifest digest. Installs the lock does not list are
// reported (as "extra") only when prune.
func DriftOf(p *paths.Paths, l *Lock, prune bool) ([]Drift, error) {
	list, err := ListAll(p)
	if err != nil {
		return nil, err
	}
	byID := map[string]*Installed{}
	for i := range list {
		if _, dup := byID[list[i].ID]; !dup {
			byID[list[i].ID] = &list[i]
		}
	}
	var out []Drift
	for _, id := range l.IDs() {
		e := l.Extensions[id]
		in := byID[id]
		switch {
		case in == nil:
			out = append(out, Drift{ID: id, Kind: "missing", Locked: e.Version})
		case !matches(in, e):
			out = append(out, Drift{ID: id, Kind: "differs", Installed: in.Version(), Locked: e.Version})
		case in.Disabled && e.Enabled:
			out = append(out, Drift{ID: id, Kind: "enable", Installed: in.Version(), Locked: e.Version})
		case !in.Disabled && !e.Enabled:
			out = append(out, Drift{ID: id, Kind: "disable", Installed: in.Version(), Locked: e.Version})
		}
	}
	if prune {
		var extra []Drift
		for id, in := range byID {
			if _, ok := l.Extensions[id]; !ok {
				extra = append(extra, Drift{ID: id, Kind: "extra", Installed: in.Version()})
			}
		}
		slices.SortFunc(extra, func(a, b Drift) int { return strings.Compare(a.ID, b.ID) })
		out = append(out, extra...)
	}
	return out, nil
}

func matches(in *Installed, e LockEntry) bool {
	r := in.Record
	if r == nil || in.Manifest == nil || in.Version() != e.Version || r.Version != e.Version || r.ManifestDigest != e.ManifestDigest {
		return false
	}
	if e.Integrity != "" && r.Integrity != e.Integrity {
		return false
	}
	return manifestDigestOf(in.Dir) == e.ManifestDigest
}

// manifestDigestOf is the sha512 SRI of dir/package.json ("" unreadable).
func manifestDigestOf(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	return bytesSRI(data)
}
