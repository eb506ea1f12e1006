package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/atomicfile"
	"github.com/spiritagents/spirit/internal/rmtree"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/paths"
)

// DefaultLockFile is the lock file that lock writes and sync reads by default.
const DefaultLockFile = "spirit-lock.json"

// LockOptions are the inputs of `spirit extension lock`.
type LockOptions struct {
	f      *Factory
	Output string
}

func newCmdLock(f *Factory, runF func(*LockOptions) error) *cobra.Command {
	opts := &LockOptions{f: f}
	cmd := &cobra.Command{
		Use:   "lock [-o FILE]",
		Short: "Write spirit-lock.json: the host's extensions, pinned and verifiable",
		Long: `Write spirit-lock.json (default in the current directory; -o - for stdout) for the
host: per extension id its version, what was asked for, the resolved URL, the
sha512 integrity of the artifact, the manifest digest, the marketplace id and
channel, and whether it is enabled. Keys are sorted, so the file diffs well; its
format is schemas/spirit-lock.schema.json. 'spirit extension sync' installs the
same set elsewhere. Installs spirit has no record of (made by the Spirit Agent
apps) cannot be fetched again and are left out with a warning.`,
		Example: "  spirit extension lock\n  spirit extension lock -o ci/spirit-lock.json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runLock(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", DefaultLockFile, "file to write, - for stdout")
	return cmd
}

func runLock(opts *LockOptions) error {
	f := opts.f
	p, err := f.Paths()
	if err != nil {
		return err
	}
	lock, skipped, err := install.BuildLock(p)
	if err != nil {
		return err
	}
	for _, id := range skipped {
		termtext.Fprintf(f.IO.ErrOut, "Warning: %s is not locked: spirit has no current record of how it was installed (installed by another app?)\n", id)
	}
	data := lock.Encode()
	if opts.Output == "-" {
		_, err := f.IO.Out.Write(data)
		return err
	}
	if err := atomicfile.WriteDurable(opts.Output, data, 0o644); err != nil {
		return err
	}
	_, err = termtext.Fprintf(f.IO.ErrOut, "Wrote %s (%d extensions).\n", opts.Output, len(lock.Extensions))
	return err
}

// SyncOptions are the inputs of `spirit extension sync`.
type SyncOptions struct {
	f           *Factory
	File        string
	Prune       bool
	Check       bool
	Offline     bool
	Yes         bool
	LockTimeout time.Duration
}

func newCmdSync(f *Factory, runF func(*SyncOptions) error) *cobra.Command {
	opts := &SyncOptions{f: f}
	cmd := &cobra.Command{
		Use:   "sync [FILE]",
		Short: "Make the host's extensions match spirit-lock.json",
		Long: `Make the host's installs match a lock file (default spirit-lock.json): install what
is missing, replace what differs, enable or disable as the lock says. Every
artifact is verified against the lock's integrity and manifest digest; a mismatch
stops that extension with an error and changes nothing for it. An entry whose
source cannot be fetched again (a folder that is gone) is an error naming it.
--prune also removes what the lock does not list. --check changes nothing and
exits 3 when anything differs, listing it (for CI). --offline uses only the npm
and marketplace caches. Running sync twice changes nothing the second time.
Replacing an installed version needs the same consent as 'update': what the
lock's version adds (capabilities, tools, activation events, secret slots, a
tool whose approval stops waiting for the user) is applied only with --yes or a
yes at the prompt that lists it, and --check lists it too.`,
		Example: "  spirit extension sync\n  spirit extension sync ci/spirit-lock.json --prune\n  spirit extension sync --check",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = DefaultLockFile
			if len(args) == 1 {
				opts.File = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return runSync(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.Prune, "prune", false, "remove installed extensions that the lock does not list")
	fl.BoolVar(&opts.Check, "check", false, "change nothing; exit 3 when the installs differ from the lock")
	fl.BoolVar(&opts.Offline, "offline", false, "use only the npm and marketplace caches")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "accept what the lock's versions add without asking")
	fl.DurationVar(&opts.LockTimeout, "lock-timeout", install.DefaultLockTimeout, "how long to wait for another spirit command")
	return cmd
}

func readLock(file string) (*install.Lock, error) {
	fh, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, install.MaxLockFile+1))
	if err != nil {
		return nil, err
	}
	l, err := install.ParseLock(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return l, nil
}

func runSync(ctx context.Context, opts *SyncOptions) error {
	f := opts.f
	p, err := f.Paths()
	if err != nil {
		return err
	}
	lock, err := readLock(opts.File)
	if errors.Is(err, os.ErrNotExist) {
		return withHint(err, "write one with 'spirit extension lock'")
	}
	if err != nil {
		return err
	}
	if lock.Host != string(p.Host) {
		return withHint(usageErrorf("%s is the lock of host %s, not %s", opts.File, lock.Host, p.Host), "pass --host "+lock.Host)
	}
	drift, err := install.DriftOf(p, lock, opts.Prune)
	if err != nil {
		return err
	}
	w := f.IO.Out
	s := &syncer{f: f, opts: opts, paths: p,
		nc: f.npmClients(p, opts.Offline, "")}
	if opts.Check {
		if len(drift) == 0 {
			_, err := termtext.Fprintf(w, "The installs match %s.\n", opts.File)
			return err
		}
		for _, d := range drift {
			termtext.Fprintln(w, d.String())
			if d.Kind == "differs" {
				s.checkAdds(ctx, lock, d)
			}
		}
		return &problemsError{msg: fmt.Sprintf("%d extensions differ from %s", len(drift), opts.File)}
	}
	in, err := f.installer(opts.LockTimeout)
	if err != nil {
		return err
	}
	s.in = in
	failed := 0
	for _, d := range drift {
		if err := s.apply(ctx, lock, d); err != nil {
			failed++
			termtext.Fprintf(f.IO.ErrOut, "Error: %s: %s\n", d.ID, termtext.Multiline(err.Error()))
			if h := hintOf(err); h != "" {
				termtext.Fprintf(f.IO.ErrOut, "Hint: %s\n", h)
			} else if errors.Is(err, errNotConsented) {
				fmt.Fprintln(f.IO.ErrOut, "Hint: pass --yes to accept what it adds")
			}
		}
	}
	if failed > 0 {
		fmt.Fprintf(f.IO.ErrOut, "%d of %d changes failed.\n", failed, len(drift))
		return &exitError{code: ExitFailure}
	}
	if len(drift) == 0 {
		_, err = termtext.Fprintf(w, "The installs already match %s.\n", opts.File)
	}
	return err
}

// syncer applies the drift of a lock, one extension at a time.
type syncer struct {
	f     *Factory
	opts  *SyncOptions
	paths *paths.Paths
	in    *install.Installer // nil for --check
	nc    *catalog.NPMClients
	im    *installMarketplace
}

// adds is what the lock's artifact (a file or folder) for drift d adds to
// the installed version it replaces, as update diffs it.
func (s *syncer) adds(d install.Drift, artifact string) (*catalog.Additions, error) {
	installed, err := install.Find(s.paths, d.ID)
	if err != nil {
		return nil, err
	}
	return catalog.AdditionsOf(installed, artifact)
}

// checkAdds prints, for --check, what replacing the installed version as
// drift d says would add: what sync asks consent for.
func (s *syncer) checkAdds(ctx context.Context, lock *install.Lock, d install.Drift) {
	w := s.f.IO.Out
	art, err := s.artifact(ctx, d.ID, lock.Extensions[d.ID])
	if err != nil {
		termtext.Fprintf(w, "  could not read %s to see what it adds: %s\n", d.Locked, err.Error())
		return
	}
	defer art.Close()
	a, err := s.adds(d, art.Path)
	if err != nil {
		termtext.Fprintf(w, "  could not read %s to see what it adds: %s\n", d.Locked, err.Error())
		return
	}
	if desc := describeAdds(a); desc != "" {
		termtext.Fprintf(w, "  %s %s; sync needs --yes or a yes at its prompt\n", d.Locked, desc)
	}
}

func (s *syncer) apply(ctx context.Context, lock *install.Lock, d install.Drift) error {
	w := s.f.IO.Out
	e := lock.Extensions[d.ID]
	switch d.Kind {
	case "extra":
		if _, err := s.in.Remove(ctx, d.ID, install.RemoveOptions{}); err != nil {
			return err
		}
		_, err := termtext.Fprintf(w, "Removed %s %s (not in the lock).\n", d.ID, d.Installed)
		return err
	case "enable":
		if _, err := s.in.Enable(ctx, d.ID); err != nil {
			return err
		}
		_, err := termtext.Fprintf(w, "Enabled %s.\n", d.ID)
		return err
	case "disable":
		if _, err := s.in.Disable(ctx, d.ID); err != nil {
			return err
		}
		_, err := termtext.Fprintf(w, "Disabled %s.\n", d.ID)
		return err
	}
	art, err := s.artifact(ctx, d.ID, e)
	if err != nil {
		return err
	}
	defer art.Close()
	if d.Kind == "differs" {
		// The bytes about to be installed are diffed, as update does.
		a, err := s.adds(d, art.Path)
		if err != nil {
			return err
		}
		if err := consentTo(s.f, s.opts.Yes, d.ID, d.Installed, e.Version, a); err != nil {
			return err
		}
	}
	req := art.Request(true, true)
	req.Integrity, req.ManifestDigest = e.Integrity, e.ManifestDigest
	req.Source, req.SourceKind, req.Channel = e.Source, e.Kind, e.Channel
	req.ExpectName, req.ExpectVersion = d.ID, e.Version
	if found, err := install.Find(s.in.Paths, d.ID); err == nil && found.Disabled {
		if _, err := s.in.Enable(ctx, d.ID); err != nil {
			return err
		}
	}
	if _, err := s.in.Install(ctx, req); err != nil {
		if errors.Is(err, install.ErrIntegrity) {
			return withHint(err, "the artifact is not what the lock pinned; nothing was changed for "+d.ID)
		}
		return err
	}
	if !e.Enabled {
		if _, err := s.in.Disable(ctx, d.ID); err != nil {
			return err
		}
	}
	if d.Kind == "missing" {
		_, err = termtext.Fprintf(w, "Installed %s %s.\n", d.ID, e.Version)
	} else {
		_, err = termtext.Fprintf(w, "Replaced %s %s with %s.\n", d.ID, d.Installed, e.Version)
	}
	return err
}

// artifact fetches what entry e of id pins, the way it was installed.
func (s *syncer) artifact(ctx context.Context, id string, e install.LockEntry) (*install.Artifact, error) {
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
		if s.opts.Offline {
			return nil, fmt.Errorf("%s is a URL install (%s); it cannot be downloaded offline", id, e.Source)
		}
		tmp, err := os.MkdirTemp("", "spirit-sync-")
		if err != nil {
			return nil, err
		}
		a := &install.Artifact{Kind: install.KindURL, Source: e.Source, ResolvedURL: e.Source, InstallSource: install.SourceArchive}
		a.OnClose(func() { rmtree.Remove(tmp) })
		lim, err := s.f.FetchLimits()
		if err != nil {
			a.Close()
			return nil, err
		}
		file, name, err := install.DownloadWithProgress(ctx, fetch.New(fetch.Options{HTTP: s.f.HTTPClient(), Limits: lim}), e.Source, tmp, s.f.IO.Progress())
		if err != nil {
			a.Close()
			return nil, err
		}
		a.Path, a.ArchiveFileName = file, name
		return a, nil
	case install.KindNPM:
		c, err := s.nc.Client(e.NPMRegistry)
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
			Integrity: tb.Integrity, InstallSource: install.SourceArchive, ArchiveFileName: catalog.TarballName(res.TarballURL), NPMRegistry: res.Registry,
			NPMSignature: &res.Signature, Provenance: c.Provenance(ctx, res)}
		if tb.Temporary {
			a.OnClose(func() { os.Remove(tb.Path) })
		}
		return a, nil
	case install.KindMarketplace:
		if s.im == nil {
			s.im = &installMarketplace{f: s.f, opts: &InstallOptions{f: s.f, Offline: s.opts.Offline}}
		}
		ms, err := s.im.source()
		if err != nil {
			return nil, err
		}
		if idx := catalog.IndexName(ms.c.Source()); e.MarketplaceIndex != "" && e.MarketplaceIndex != idx {
			return nil, withHint(fmt.Errorf("%s was locked from the marketplace index %s, not %s", id, e.MarketplaceIndex, idx),
				"pass --registry "+e.MarketplaceIndex)
		}
		return ms.resolver().ResolveMarketplace(ctx, install.MarketplaceRef{ID: e.MarketplaceID, Version: e.Version})
	}
	return nil, fmt.Errorf("unknown kind %q", e.Kind)
}
