package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/rmtree"
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/paths"
)

// Syncer makes the installs of one host match a lock file
// (install.Lock): it installs what is missing, replaces what differs,
// enables or disables as the lock says and, when planned with prune,
// removes what the lock does not list. Every artifact is fetched the way
// its entry was installed (folder, archive, URL, npm, marketplace) and
// verified against the lock's integrity and manifest digest. Like the
// Updater it never prints and never prompts: replacing an installed
// version asks Apply's Ask about what the lock's version adds.
//
// The steps are Plan, then Adds per drift (what `sync --check` shows) or
// Apply.
type Syncer struct {
	Paths *paths.Paths
	// NPM makes the clients that fetch npm entries.
	NPM *NPMClients
	// Offline refuses URL entries (they cannot be downloaded offline); the
	// npm and marketplace clients are made offline by their owner.
	Offline bool
	// Fetch makes the client that downloads URL entries; Progress, when
	// set, shows those downloads.
	Fetch    func() (*fetch.Client, error)
	Progress fetch.Progress
	// Catalog returns the marketplace client that marketplace entries are
	// fetched from. It is called only when such an entry is fetched, so a
	// lock without one never reads the index.
	Catalog func() (*Client, error)
	// Marketplace, when set, resolves a marketplace version to a
	// downloaded and verified artifact (a front end that asks about the
	// install policy sets it); nil prepares, checks Policy and downloads
	// through Catalog.
	Marketplace func(ctx context.Context, ref install.MarketplaceRef) (*install.Artifact, error)
	// Check, when set, is asked about each locked version's manifest before
	// it is installed (install.Request.Check); an error refuses that change.
	// The command line refuses a tool name the install would newly share.
	Check func(*manifest.Manifest) error
	// Policy is what the default marketplace resolution accepts;
	// AllowSHA1 accepts tarballs that only sha1 verifies.
	Policy    Consent
	AllowSHA1 bool
	// Installer applies the plan (Apply only).
	Installer *install.Installer
}

// SyncPlan is the drift of the host's installs from a lock: per
// extension, in id order, whether it is missing (Apply installs it),
// differs (Apply replaces it, asking about what the lock's version adds),
// needs enabling or disabling, or is not in the lock ("extra", planned
// only with prune: Apply removes it).
type SyncPlan struct {
	Lock  *install.Lock
	Drift []install.Drift
}

// LockHostError says that a lock was written for another host.
type LockHostError struct {
	// Lock is the lock's host; Host the host synced.
	Lock, Host string
}

func (e *LockHostError) Error() string {
	return "the lock is of host " + e.Lock + ", not " + e.Host
}

// LockIndexError says that a marketplace entry was locked from another
// marketplace index than the one configured.
type LockIndexError struct {
	ID string
	// Locked is the index the entry was locked from; Index the one
	// configured.
	Locked, Index string
}

func (e *LockIndexError) Error() string {
	return fmt.Sprintf("%s was locked from the marketplace index %s, not %s", e.ID, e.Locked, e.Index)
}

// hintedError is an error with a hint for the user (a front end shows it
// after the error).
type hintedError struct {
	err  error
	hint string
}

func (e *hintedError) Error() string { return e.err.Error() }
func (e *hintedError) Unwrap() error { return e.err }
func (e *hintedError) Hint() string  { return e.hint }

// Plan compares lock with what the host has installed. A lock of another
// host is a *LockHostError.
func (s *Syncer) Plan(lock *install.Lock, prune bool) (*SyncPlan, error) {
	if lock.Host != string(s.Paths.Host) {
		return nil, &LockHostError{Lock: lock.Host, Host: string(s.Paths.Host)}
	}
	drift, err := install.DriftOf(s.Paths, lock, prune)
	if err != nil {
		return nil, err
	}
	return &SyncPlan{Lock: lock, Drift: drift}, nil
}

// Adds fetches the lock's artifact for drift d (one that differs) and says
// what replacing the installed version with it adds: what Apply asks
// consent for. It changes nothing.
func (s *Syncer) Adds(ctx context.Context, p *SyncPlan, d install.Drift) (*Additions, error) {
	art, err := s.artifact(ctx, d.ID, p.Lock.Extensions[d.ID])
	if err != nil {
		return nil, err
	}
	defer art.Close()
	return s.adds(d, art.Path)
}

// adds diffs the artifact (a file or folder) for drift d with the
// installed version it replaces, as update does.
func (s *Syncer) adds(d install.Drift, artifact string) (*Additions, error) {
	installed, err := install.Find(s.Paths, d.ID)
	if err != nil {
		return nil, err
	}
	return AdditionsOf(installed, artifact)
}

// SyncResult is the outcome of one drift that Apply acted on.
type SyncResult struct {
	install.Drift
	// Err says why the change failed (matching ErrNotConsented when Ask
	// refused); nothing was changed for the extension then.
	Err error
	// Result is the install, for a missing or differing extension.
	Result *install.Result
}

// Apply acts on the plan, one extension at a time, each change atomic;
// a failure stops only its extension. report, when set, is called with
// each result as it is known. It returns one result per drift.
func (s *Syncer) Apply(ctx context.Context, p *SyncPlan, ask Ask, report func(SyncResult)) []SyncResult {
	results := make([]SyncResult, 0, len(p.Drift))
	for _, d := range p.Drift {
		r := SyncResult{Drift: d}
		r.Result, r.Err = s.apply(ctx, p.Lock, d, ask)
		if report != nil {
			report(r)
		}
		results = append(results, r)
	}
	return results
}

func (s *Syncer) apply(ctx context.Context, lock *install.Lock, d install.Drift, ask Ask) (*install.Result, error) {
	in := s.Installer
	switch d.Kind {
	case "extra":
		_, err := in.Remove(ctx, d.ID, install.RemoveOptions{})
		return nil, err
	case "enable":
		_, err := in.Enable(ctx, d.ID)
		return nil, err
	case "disable":
		_, err := in.Disable(ctx, d.ID)
		return nil, err
	}
	e := lock.Extensions[d.ID]
	art, err := s.artifact(ctx, d.ID, e)
	if err != nil {
		return nil, err
	}
	defer art.Close()
	if d.Kind == "differs" {
		// The bytes about to be installed are diffed, as update does.
		a, err := s.adds(d, art.Path)
		if err != nil {
			return nil, err
		}
		if err := askAdds(ask, d.ID, d.Installed, e.Version, a); err != nil {
			return nil, err
		}
	}
	req := art.Request(true, true)
	req.Integrity, req.ManifestDigest = e.Integrity, e.ManifestDigest
	req.Source, req.SourceKind, req.Channel = e.Source, e.Kind, e.Channel
	req.ExpectName, req.ExpectVersion = d.ID, e.Version
	req.Check = s.Check
	if found, err := install.Find(in.Paths, d.ID); err == nil && found.Disabled {
		if _, err := in.Enable(ctx, d.ID); err != nil {
			return nil, err
		}
	}
	res, err := in.Install(ctx, req)
	if err != nil {
		if errors.Is(err, install.ErrIntegrity) {
			return nil, &hintedError{err: err, hint: "the artifact is not what the lock pinned; nothing was changed for " + d.ID}
		}
		return nil, err
	}
	if !e.Enabled {
		if _, err := in.Disable(ctx, d.ID); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// artifact fetches what entry e of id pins, the way it was installed.
func (s *Syncer) artifact(ctx context.Context, id string, e install.LockEntry) (*install.Artifact, error) {
	switch e.Kind {
	case install.KindDir, install.KindArchive:
		if _, err := os.Stat(e.Source); err != nil {
			return nil, fmt.Errorf("its source %s cannot be read, so it cannot be installed again: %w", e.Source, err)
		}
		a := &install.Artifact{Kind: e.Kind, Path: e.Source, Source: e.Source, InstallSource: install.SourceArchive}
		if e.Kind == install.KindArchive {
			a.ArchiveFileName = filepath.Base(e.Source)
		}
		return a, nil
	case install.KindURL:
		return s.urlArtifact(ctx, id, e)
	case install.KindNPM:
		return s.npmArtifact(ctx, id, e)
	case install.KindMarketplace:
		return s.marketplaceArtifact(ctx, id, e)
	}
	return nil, fmt.Errorf("unknown kind %q", e.Kind)
}

func (s *Syncer) urlArtifact(ctx context.Context, id string, e install.LockEntry) (*install.Artifact, error) {
	if s.Offline {
		return nil, fmt.Errorf("%s is a URL install (%s); it cannot be downloaded offline", id, e.Source)
	}
	tmp, err := os.MkdirTemp("", "spirit-sync-")
	if err != nil {
		return nil, err
	}
	a := &install.Artifact{Kind: install.KindURL, Source: e.Source, ResolvedURL: e.Source, InstallSource: install.SourceArchive}
	a.OnClose(func() { rmtree.Remove(tmp) })
	fc, err := s.Fetch()
	if err != nil {
		a.Close()
		return nil, err
	}
	file, name, err := install.DownloadWithProgress(ctx, fc, e.Source, tmp, s.Progress)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.Path, a.ArchiveFileName = file, name
	return a, nil
}

func (s *Syncer) npmArtifact(ctx context.Context, id string, e install.LockEntry) (*install.Artifact, error) {
	c, err := s.NPM.Client(e.NPMRegistry)
	if err != nil {
		return nil, err
	}
	res, err := c.Resolve(ctx, npm.Spec{Name: id, Range: e.Version})
	if err != nil {
		return nil, err
	}
	tb, err := c.FetchTarball(ctx, res)
	if err != nil {
		return nil, err
	}
	a := &install.Artifact{Kind: install.KindNPM, Path: tb.Path, Source: e.Source, ResolvedURL: res.TarballURL,
		Integrity: tb.Integrity, InstallSource: install.SourceArchive, ArchiveFileName: TarballName(res.TarballURL), NPMRegistry: res.Registry,
		NPMSignature: &res.Signature, Provenance: c.Provenance(ctx, res)}
	if tb.Temporary {
		a.OnClose(func() { os.Remove(tb.Path) })
	}
	return a, nil
}

// marketplaceArtifact resolves a marketplace entry through the configured
// index, which must be the one the entry was locked from.
func (s *Syncer) marketplaceArtifact(ctx context.Context, id string, e install.LockEntry) (*install.Artifact, error) {
	c, err := s.Catalog()
	if err != nil {
		return nil, err
	}
	if idx := IndexName(c.Source()); e.MarketplaceIndex != "" && e.MarketplaceIndex != idx {
		return nil, &LockIndexError{ID: id, Locked: e.MarketplaceIndex, Index: idx}
	}
	resolve := s.Marketplace
	if resolve == nil {
		resolve = func(ctx context.Context, ref install.MarketplaceRef) (*install.Artifact, error) {
			return c.Resolve(ctx, ref, string(s.Paths.Host), s.Policy, s.AllowSHA1)
		}
	}
	r := &install.Resolver{Marketplace: resolve}
	return r.ResolveMarketplace(ctx, install.MarketplaceRef{ID: e.MarketplaceID, Version: e.Version})
}
