package install

import (
	"context"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/gofrs/flock"

	"github.com/spiritagents/spirit/internal/atomicfile"
	"github.com/spiritagents/spirit/internal/rmtree"
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/paths"
	"github.com/spiritagents/spirit/sandbox"
)

// DefaultLockTimeout is how long a command waits for another one by default.
const DefaultLockTimeout = 60 * time.Second

// Errors of the mutating operations.
var (
	ErrAlreadyInstalled = errors.New("extension already installed")
	ErrDowngrade        = errors.New("downgrade needs confirmation")
	ErrLockTimeout      = errors.New("timed out waiting for another spirit command")
	ErrIdentity         = errors.New("package identity differs from what was expected")
	ErrNoGeneration     = errors.New("no previous version kept")
	ErrIntegrity        = errors.New("integrity mismatch")
)

// AlreadyInstalledError is the reference's refusal to overwrite an install.
type AlreadyInstalledError struct{ ID string }

func (e *AlreadyInstalledError) Error() string {
	return "The extension already exists; remove it before importing: " + e.ID
}

// Is matches ErrAlreadyInstalled.
func (e *AlreadyInstalledError) Is(target error) bool { return target == ErrAlreadyInstalled }

// DowngradeError says that a replace would install an older version.
type DowngradeError struct{ ID, Installed, Incoming string }

func (e *DowngradeError) Error() string {
	return fmt.Sprintf("replacing %s %s with the older %s is a downgrade", e.ID, e.Installed, e.Incoming)
}

// Is matches ErrDowngrade.
func (e *DowngradeError) Is(target error) bool { return target == ErrDowngrade }

// Installer performs the mutating operations on one host's install tree.
// Each operation takes the lock for its whole duration.
type Installer struct {
	Paths *paths.Paths
	// LockTimeout bounds the wait for another process; 0 means DefaultLockTimeout.
	LockTimeout time.Duration
	// Progress may be nil.
	Progress Progress
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Warn, when set, is told what a command repaired on the way (a
	// corrupt installed.json moved aside), once.
	Warn func(msg string)
}

// Request is one install from a local artifact: a directory, .zip or .tgz.
// Sources that download (npm, marketplace, URL) fetch first, then call
// Install with the file and the fields that say where it came from.
type Request struct {
	Path    string
	Replace bool
	// AllowDowngrade lets a Replace install an older version.
	AllowDowngrade bool
	// Source is what the user asked for (a path, URL or npm spec), recorded.
	Source string
	// SourceKind is how Source was taken (a Kind constant), recorded.
	SourceKind string
	// NPMRegistry is the registry of an npm source, recorded.
	NPMRegistry string
	// NPMSignature is what the registry signature check of an npm source
	// found, recorded.
	NPMSignature *npm.SignatureCheck
	// Provenance is an npm source's (unverified) provenance, recorded.
	Provenance  *npm.Provenance
	ResolvedURL string
	// Integrity, when it is a sha512 SRI, must match the artifact's bytes.
	Integrity string
	// ManifestDigest, when set, must be the sha512 SRI of the package.json
	// (how a lock verifies a directory, which has no artifact digest).
	ManifestDigest string
	InstallSource  string // SourceArchive (default) or SourceMarketplace
	// ArchiveFileName is recorded in extensions.json; "" means none.
	ArchiveFileName string
	// MarketplaceIndex and MarketplaceID say which marketplace entry a
	// SourceMarketplace install is: the index (as the user names it) and
	// the extension id in it.
	MarketplaceIndex string
	MarketplaceID    string
	Channel          string
	ReviewStatus     string
	// ExpectName and ExpectVersion, when set, must equal the package's.
	ExpectName    string
	ExpectVersion string
	// Owner, when set, limits Replace to an install that Owner owns; any
	// other install is refused with a *ForeignInstallError. It is checked
	// under the lock.
	Owner *MarketplaceOrigin
	// Check, when set, is called with the incoming manifest under the
	// lock, before anything is written; its error aborts the install.
	Check func(m *manifest.Manifest) error
	// EvictOnMismatch is a cached artifact (Path) that nothing verified
	// before the install: it is removed when it is unreadable or its bytes
	// do not match Integrity, so that the next install downloads it again.
	EvictOnMismatch string
	// Body, when set, is the .tgz itself, still downloading (Path is then
	// unused): it is unpacked as its bytes arrive, into the staging
	// directory, and nothing is installed unless Body reads to its end,
	// where it verifies its own digest.
	Body Body
}

// Body is a .tgz read as it downloads, which checks its own bytes:
// *npm.TarballStream is one. Read returns io.EOF only at the end of bytes
// that match the digest they were expected to have; any mismatch or
// failure is an error instead. Close may be called from another goroutine
// to stop a Read.
type Body interface {
	io.ReadCloser
	// Integrity is the sha512 SRI of the bytes, once Read returned io.EOF.
	Integrity() string
	// Path is the verified copy of the bytes kept once Read returned
	// io.EOF ("" when none was kept), so that a second Install of the same
	// Request (after a confirmation) need not download again.
	Path() string
	// Size is the announced size, -1 when unknown.
	Size() int64
	// Label names the download in messages.
	Label() string
}

// bodyReader remembers why a Body failed, unless it was stopped: that
// error, not what the decompressor made of it, explains a failed install.
type bodyReader struct {
	b       Body
	err     error
	stopped atomic.Bool
}

func (r *bodyReader) Read(p []byte) (int, error) {
	n, err := r.b.Read(p)
	if err != nil && err != io.EOF && r.err == nil && !r.stopped.Load() {
		r.err = err
	}
	return n, err
}

func (r *bodyReader) stop() {
	r.stopped.Store(true)
	r.b.Close()
}

// Result is a finished install.
type Result struct {
	Installed
	// Previous is the version that was replaced ("" for a new install).
	Previous string
}

func (in *Installer) now() time.Time {
	if in.Now != nil {
		return in.Now()
	}
	return time.Now()
}

// lock takes .spirit/lock, tidies what a killed process left, and returns
// the unlock function.
func (in *Installer) lock(ctx context.Context) (func(), error) {
	p := in.Paths
	if err := os.MkdirAll(p.SpiritDir(), 0o755); err != nil {
		return nil, err
	}
	fl := flock.New(p.LockFile())
	ok, err := fl.TryLock()
	if err != nil {
		return nil, err
	}
	if !ok {
		progressWaiting(in.Progress, p.LockFile())
		timeout := in.LockTimeout
		if timeout <= 0 {
			timeout = DefaultLockTimeout
		}
		wctx, cancel := context.WithTimeout(ctx, timeout)
		ok, err = fl.TryLockContext(wctx, 50*time.Millisecond)
		cancel()
		if !ok {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return nil, fmt.Errorf("lock %s: %w", p.LockFile(), err)
			}
			return nil, fmt.Errorf("%w after %s (lock %s)", ErrLockTimeout, timeout, p.LockFile())
		}
	}
	in.tidy()
	in.tidyDisabled()
	in.recoverRecords()
	return func() { _ = fl.Unlock() }, nil
}

// tidy repairs interrupted swaps and removes leftovers of killed runs.
func (in *Installer) tidy() {
	p := in.Paths
	in.tidyKeeping(recoverSwaps(p.StagingDir(), moveDir))
}

// tidyKeeping empties staging, except the transactions in keep, and the
// trash.
func (in *Installer) tidyKeeping(keep map[string]bool) {
	p := in.Paths
	for _, d := range []string{p.StagingDir(), in.trashDir()} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if d == p.StagingDir() && keep[e.Name()] {
				continue
			}
			// What a running program still holds stays until a later command.
			_ = rmtree.Remove(filepath.Join(d, e.Name()))
		}
	}
}

// recoverRecords moves a corrupt installed.json aside (as
// installed.json.corrupt-<time>) and writes the records that can be
// rebuilt, so that the next write does not drop every other record.
func (in *Installer) recoverRecords() {
	p := in.Paths
	if !recordsCorrupt(p.InstalledFile()) {
		return
	}
	aside := fmt.Sprintf("%s.corrupt-%s", p.InstalledFile(), in.now().UTC().Format("20060102T150405.000Z"))
	if err := os.Rename(p.InstalledFile(), aside); err != nil {
		return
	}
	reg, _ := readRegistry(p.RegistryFile())
	recs := rebuildRecords(p, reg)
	_ = atomicfile.WriteDurable(p.InstalledFile(), encodeRecords(recs), 0o644)
	if in.Warn != nil {
		in.Warn(fmt.Sprintf("%s could not be read; moved it to %s and rebuilt %d records from extensions.json and the installed packages (their sources and integrity are no longer known)",
			p.InstalledFile(), aside, len(recs)))
	}
}

func (in *Installer) trashDir() string { return filepath.Join(in.Paths.SpiritDir(), "trash") }

// toTrash renames dir out of the way (atomic) so it can be deleted slowly.
func (in *Installer) toTrash(dir string) (string, error) {
	if err := os.MkdirAll(in.trashDir(), 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(in.trashDir(), randomName())
	return dst, moveDir(dir, dst)
}

func randomName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Install installs req.Path. The manifest is validated for the host, an
// existing install is refused unless req.Replace, and a replaced version is
// kept as the rollback generation.
func (in *Installer) Install(ctx context.Context, req Request) (*Result, error) {
	// An unverified cached artifact that turns out unreadable or different
	// from its digest is removed, so that the next install fetches it again.
	evict := func() {
		if req.EvictOnMismatch != "" {
			os.Remove(req.EvictOnMismatch)
		}
	}
	if req.Body != nil && req.Body.Integrity() != "" {
		// Read to its end by an earlier Install of this request (one that
		// asked for a confirmation): its verified copy is installed.
		if req.Body.Path() == "" {
			return nil, fmt.Errorf("%s was read already and no copy of it was kept", req.Body.Label())
		}
		req.Path, req.Integrity, req.Body = req.Body.Path(), req.Body.Integrity(), nil
	}
	format := FormatTgz
	if req.Body == nil {
		var err error
		if format, err = DetectFormat(req.Path); err != nil {
			evict()
			return nil, err
		}
	}
	unlock, err := in.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()

	p := in.Paths
	if err := os.MkdirAll(p.StagingDir(), 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(p.StateDir(), 0o755); err != nil {
		return nil, err
	}
	txn, err := os.MkdirTemp(p.StagingDir(), "install-")
	if err != nil {
		return nil, err
	}
	defer rmtree.Remove(txn)
	staged := filepath.Join(txn, "pkg")
	if err := os.Mkdir(staged, 0o755); err != nil {
		return nil, err
	}
	// The bytes hashed are the bytes unpacked: a tarball is hashed as it
	// streams through the extractor; a ZIP, which needs random access, is
	// hashed while it is copied into the transaction and unpacked from
	// that private copy.
	src, digest := req.Path, sha512.New()
	switch format {
	case FormatZip:
		src = filepath.Join(txn, "artifact.zip")
		if err := copyHashed(src, req.Path, digest); err != nil {
			return nil, err
		}
		if err := checkIntegrity(req, digest); err != nil {
			evict()
			return nil, err
		}
	case FormatDir:
		digest = nil
	}
	rs, err := newRootSink(staged)
	if err != nil {
		return nil, err
	}
	var ex extracted
	integrity := ""
	if req.Body != nil {
		// The download checks its own digest at its end, with the
		// algorithm its source names, and the bytes unpacked are the bytes
		// it checked: hashed once, as they arrive.
		body := &bodyReader{b: req.Body}
		ex, err = extractStream(ctx, body, req.Body.Size(), req.Body.Label(), rs, in.Progress, body.stop)
		rs.close()
		if err != nil {
			if body.err != nil {
				err = body.err
			}
			return nil, err
		}
		if integrity = req.Body.Integrity(); integrity == "" {
			return nil, fmt.Errorf("%w: %s: the download ended without a digest", ErrIntegrity, req.Body.Label())
		}
		req.Path = req.Body.Label()
	} else {
		var tee io.Writer
		if format == FormatTgz {
			tee = digest
		}
		ex, err = extract(ctx, src, format, rs, in.Progress, tee)
		rs.close()
		var ce *CorruptError
		if errors.As(err, &ce) {
			// Named as the user knows it, not by its private copy.
			ce.Archive = req.Path
			if req.Source != "" {
				ce.Archive = recordedURL(req.Source)
			}
		}
		if err != nil {
			if format == FormatTgz && ctx.Err() == nil {
				evict()
			}
			return nil, err
		}
		if digest != nil {
			if err := checkIntegrity(req, digest); err != nil {
				evict()
				return nil, err
			}
			integrity = sriOf(digest)
		}
	}
	data := ex.manifest
	m, err := loadManifest(data, staged, string(p.Host))
	if err != nil {
		return nil, err
	}
	if err := ex.checkLength(m.ID); err != nil {
		return nil, err
	}
	if got := bytesSRI(data); req.ManifestDigest != "" && got != req.ManifestDigest {
		return nil, fmt.Errorf("%w: %s: package.json: expected %s, got %s", ErrIntegrity, req.Path, req.ManifestDigest, got)
	}
	if req.ExpectName != "" && m.ID != req.ExpectName {
		return nil, fmt.Errorf("%w: the package is named %q, expected %q", ErrIdentity, m.ID, req.ExpectName)
	}
	if req.ExpectVersion != "" && m.Version != req.ExpectVersion {
		return nil, fmt.Errorf("%w: %s has version %q, expected %q", ErrIdentity, m.ID, m.Version, req.ExpectVersion)
	}
	if req.Check != nil {
		if err := req.Check(m); err != nil {
			return nil, err
		}
	}

	if _, err := os.Lstat(p.DisabledPackageDir(m.ID)); err == nil {
		return nil, &DisabledError{ID: m.ID}
	}
	target := p.PackageDir(m.ID)
	previous := ""
	_, statErr := os.Lstat(target)
	exists := statErr == nil
	if exists {
		if !req.Replace {
			return nil, &AlreadyInstalledError{ID: m.ID}
		}
		previous = installedVersion(target)
		if isDowngrade(previous, m.Version) && !req.AllowDowngrade {
			return nil, &DowngradeError{ID: m.ID, Installed: previous, Incoming: m.Version}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	reg, err := readRegistry(p.RegistryFile())
	if err != nil {
		return nil, err
	}
	recs := readRecords(p.InstalledFile())
	var oldEntry *Entry
	for i := range reg {
		if reg[i].ID == m.ID {
			oldEntry = &reg[i]
		}
	}
	oldRecord := recs[m.ID]
	if exists && req.Owner != nil && !req.Owner.Owns(oldEntry, oldRecord) {
		return nil, &ForeignInstallError{ID: m.ID, Version: previous, From: DescribeOrigin(oldEntry, oldRecord),
			Incoming: *req.Owner, IncomingVersion: m.Version}
	}

	// The commit point: the new directory takes the target's place.
	if exists {
		if err := exchangeDirs(staged, target); err != nil {
			return nil, err
		}
		if trash := in.keepGeneration(m.ID, previous, staged, oldEntry, oldRecord); trash != "" {
			defer rmtree.Remove(trash)
		}
	} else if err := moveDir(staged, target); err != nil {
		return nil, err
	}

	now := in.now().UnixMilli()
	installSource := req.InstallSource
	if installSource == "" {
		installSource = SourceArchive
	}
	entry := Entry{
		ID: m.ID, DirectoryName: paths.PackageDirName(m.ID), InstalledAtUnixMs: now,
		ArchiveFileName: manifest.TrimJS(req.ArchiveFileName), InstallSource: installSource,
	}
	rec := &Record{
		ID: m.ID, Version: m.Version, DirectoryName: entry.DirectoryName, InstallSource: installSource,
		Source: recordedURL(req.Source), SourceKind: req.SourceKind, NPMRegistry: recordedURL(req.NPMRegistry),
		ArchiveFileName: entry.ArchiveFileName, ResolvedURL: recordedURL(req.ResolvedURL),
		Integrity: integrity, ManifestDigest: bytesSRI(data), GrantedCapabilities: m.RequestedCapabilities,
		MarketplaceIndex: req.MarketplaceIndex, MarketplaceID: req.MarketplaceID, Channel: req.Channel, ReviewStatus: req.ReviewStatus,
		NPMSignature: req.NPMSignature, Provenance: req.Provenance,
		InstalledAtUnixMs: now, FirstInstalledAtUnixMs: now,
	}
	switch {
	case exists && oldRecord != nil && oldRecord.FirstInstalledAtUnixMs != 0:
		rec.FirstInstalledAtUnixMs = oldRecord.FirstInstalledAtUnixMs
	case exists && oldEntry != nil && oldEntry.InstalledAtUnixMs != 0:
		rec.FirstInstalledAtUnixMs = oldEntry.InstalledAtUnixMs
	}
	if err := in.writeRecords(reg, recs, entry, rec); err != nil {
		return nil, err
	}
	return &Result{
		Installed: Installed{ID: m.ID, Dir: target, Manifest: m, InstalledAtUnixMs: now, Entry: &entry, Record: rec},
		Previous:  previous,
	}, nil
}

// writeRecords puts entry and rec (or, when nil, removes id's) into both
// record files: extensions.json first, then installed.json.
func (in *Installer) writeRecords(reg []Entry, recs map[string]*Record, entry Entry, rec *Record) error {
	out := make([]Entry, 0, len(reg)+1)
	for _, e := range reg {
		if e.ID != entry.ID {
			out = append(out, e)
		}
	}
	if rec != nil {
		out = append(out, entry)
		recs[entry.ID] = rec
	} else {
		delete(recs, entry.ID)
	}
	in.dropStale(recs, entry.ID)
	if err := atomicfile.WriteDurable(in.Paths.RegistryFile(), encodeRegistry(out), 0o644); err != nil {
		return err
	}
	return atomicfile.WriteDurable(in.Paths.InstalledFile(), encodeRecords(recs), 0o644)
}

// dropStale deletes the records, other than skip's, that no longer
// describe the installed package (the apps replaced it since).
func (in *Installer) dropStale(recs map[string]*Record, skip string) {
	for id, r := range recs {
		if id == skip {
			continue
		}
		dir := in.Paths.PackageDir(id)
		if _, err := os.Stat(dir); err != nil {
			dir = in.Paths.DisabledPackageDir(id)
		}
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			continue
		}
		if stale(r, installedVersion(dir), data) {
			delete(recs, id)
		}
	}
}

// generation is the metadata kept beside a generation directory.
type generation struct {
	Entry  *Entry  `json:"entry,omitempty"`
	Record *Record `json:"record,omitempty"`
}

// safeVersion is compiled on first use, not at every spirit start (the
// {0,99} repetition makes a large program).
var safeVersion = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+_-]{0,99}$`)
})

func generationName(version string) string {
	if safeVersion().MatchString(version) {
		return version
	}
	return "v-" + base64.RawURLEncoding.EncodeToString([]byte(version))
}

// keepGeneration moves the replaced directory old into the generations
// folder of id, as the only generation kept. A failure here costs only the
// rollback, never the install, so it is not returned. It returns the
// trashed older generation, for the caller to delete once it is done.
func (in *Installer) keepGeneration(id, version, old string, e *Entry, r *Record) (trash string) {
	root := in.Paths.GenerationsDir(id)
	if _, err := os.Stat(root); err == nil {
		var err error
		if trash, err = in.toTrash(root); err != nil {
			return ""
		}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return trash
	}
	name := generationName(version)
	meta, _ := json.MarshalIndent(generation{Entry: e, Record: r}, "", "  ")
	if atomicfile.WriteDurable(filepath.Join(root, name+".json"), meta, 0o644) != nil {
		return trash
	}
	_ = moveDir(old, filepath.Join(root, name))
	return trash
}

// Generation returns the version kept for rollback of id and its directory.
func Generation(p *paths.Paths, id string) (version, dir string, err error) {
	root := p.GenerationsDir(id)
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if e.IsDir() {
			dir = filepath.Join(root, e.Name())
			return installedVersion(dir), dir, nil
		}
	}
	return "", "", fmt.Errorf("%w for %s", ErrNoGeneration, id)
}

// RemoveOptions tune Remove.
type RemoveOptions struct {
	// Purge also deletes the settings file, the kept generation, and the
	// sandbox grants and private directory.
	Purge bool
}

// Remove uninstalls id, even when its manifest no longer parses. Settings
// are kept unless opts.Purge. It returns what was removed.
func (in *Installer) Remove(ctx context.Context, id string, opts RemoveOptions) (*Installed, error) {
	id = manifest.TrimJS(id)
	if id == "" {
		return nil, errors.New("The extension id must not be empty.")
	}
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
	var grants map[string]sandbox.Policy
	if opts.Purge {
		// A damaged file stops the purge before anything is removed.
		if grants, err = AllPermissions(p); err != nil {
			return nil, err
		}
	}
	trash, err := in.toTrash(found.Dir)
	if err != nil {
		return nil, err
	}
	reg, err := readRegistry(p.RegistryFile())
	if err != nil {
		return nil, err
	}
	if err := in.writeRecords(reg, readRecords(p.InstalledFile()), Entry{ID: id}, nil); err != nil {
		return nil, err
	}
	if opts.Purge {
		if err := os.Remove(p.SettingsFile(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		_ = rmtree.Remove(p.GenerationsDir(id))
		if err := purgePermissions(p, grants, id); err != nil {
			return nil, err
		}
	}
	if found.Disabled {
		_ = os.Remove(disabledMetaFile(p, found.ID))
	}
	_ = rmtree.Remove(trash)
	return found, nil
}

// Rollback puts back the generation kept by the last replace of id; the
// version it replaces becomes the kept generation, so a second Rollback
// undoes the first. It works after a Remove (without --purge) too.
func (in *Installer) Rollback(ctx context.Context, id string) (*Result, error) {
	unlock, err := in.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	p := in.Paths
	genVersion, genDir, err := Generation(p, id)
	if err != nil {
		return nil, err
	}
	var meta generation
	if data, err := os.ReadFile(filepath.Join(filepath.Dir(genDir), filepath.Base(genDir)+".json")); err == nil {
		_ = json.Unmarshal(data, &meta)
	}
	data, err := os.ReadFile(filepath.Join(genDir, "package.json"))
	if err != nil {
		return nil, err
	}
	m, err := loadManifest(data, genDir, string(p.Host))
	if err != nil {
		return nil, fmt.Errorf("the kept version of %s is no longer valid: %w", id, err)
	}
	reg, err := readRegistry(p.RegistryFile())
	if err != nil {
		return nil, err
	}
	recs := readRecords(p.InstalledFile())
	var curEntry *Entry
	for i := range reg {
		if reg[i].ID == id {
			curEntry = &reg[i]
		}
	}
	curRecord := recs[id]

	target := p.PackageDir(id)
	current := ""
	if _, err := os.Lstat(target); err == nil {
		current = installedVersion(target)
		if err := os.MkdirAll(p.StagingDir(), 0o755); err != nil {
			return nil, err
		}
		txn, err := os.MkdirTemp(p.StagingDir(), "rollback-")
		if err != nil {
			return nil, err
		}
		defer rmtree.Remove(txn)
		staged := filepath.Join(txn, "pkg")
		if err := moveDir(genDir, staged); err != nil {
			return nil, err
		}
		if err := exchangeDirs(staged, target); err != nil {
			_ = moveDir(staged, genDir)
			return nil, err
		}
		if trash := in.keepGeneration(id, current, staged, curEntry, curRecord); trash != "" {
			defer rmtree.Remove(trash)
		}
	} else {
		if err := moveDir(genDir, target); err != nil {
			return nil, err
		}
		_ = rmtree.Remove(p.GenerationsDir(id))
	}

	now := in.now().UnixMilli()
	entry := Entry{ID: id, DirectoryName: paths.PackageDirName(id), InstalledAtUnixMs: now, InstallSource: SourceArchive}
	if meta.Entry != nil {
		entry.ArchiveFileName, entry.InstallSource = meta.Entry.ArchiveFileName, meta.Entry.InstallSource
	}
	rec := meta.Record
	if rec == nil {
		rec = &Record{ID: id, DirectoryName: entry.DirectoryName, InstallSource: entry.InstallSource, ManifestDigest: bytesSRI(data)}
	}
	rec.Version, rec.InstalledAtUnixMs = genVersion, now
	if err := in.writeRecords(reg, recs, entry, rec); err != nil {
		return nil, err
	}
	return &Result{
		Installed: Installed{ID: id, Dir: target, Manifest: m, InstalledAtUnixMs: now, Entry: &entry, Record: rec},
		Previous:  current,
	}, nil
}

// installedVersion reads the version from dir/package.json without
// validating it ("" when unreadable).
func installedVersion(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var v struct {
		Version any `json:"version"`
	}
	_ = json.Unmarshal(data, &v)
	s, _ := v.Version.(string)
	return strings.TrimSpace(s)
}

// isDowngrade reports whether incoming is an older semver than installed.
func isDowngrade(installed, incoming string) bool {
	a, err1 := semver.NewVersion(installed)
	b, err2 := semver.NewVersion(incoming)
	return err1 == nil && err2 == nil && b.LessThan(a)
}

// maxZipFile is the largest .zip that can hold a package within the
// limits: MaxTotalSize of content (stored) and room for the headers.
const maxZipFile = MaxTotalSize + 100<<20

// copyHashed copies the .zip src to dst, writing every byte to digest
// too. A file larger than maxZipFile is refused before it is copied.
func copyHashed(dst, src string, digest hash.Hash) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tooLarge := fmt.Errorf("%w: %s is larger than %d MiB, more than a package within the limits needs", ErrTotalTooLarge, src, maxZipFile>>20)
	if fi, err := in.Stat(); err != nil {
		return err
	} else if fi.Size() > maxZipFile {
		return tooLarge
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(io.MultiWriter(out, digest), io.LimitReader(in, maxZipFile+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > maxZipFile {
		err = tooLarge
	}
	return err
}

// checkIntegrity compares the digest of the artifact with req.Integrity,
// when that is a sha512 SRI.
func checkIntegrity(req Request, digest hash.Hash) error {
	got := sriOf(digest)
	if strings.HasPrefix(req.Integrity, "sha512-") && req.Integrity != got {
		return fmt.Errorf("%w: %s: expected %s, got %s", ErrIntegrity, req.Path, req.Integrity, got)
	}
	return nil
}

func sriOf(digest hash.Hash) string {
	return "sha512-" + base64.StdEncoding.EncodeToString(digest.Sum(nil))
}

func bytesSRI(b []byte) string {
	sum := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}
