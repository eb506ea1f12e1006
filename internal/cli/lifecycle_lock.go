package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/atomicfile"
	"github.com/spiritagents/spirit/internal/termtext"
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
	// NoWarm skips caching the static system prompts of what sync installs.
	NoWarm bool
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
	fl.BoolVar(&opts.NoWarm, "no-warm", false, noWarmUsage)
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
	s := newSyncer(f, p, opts.Offline)
	plan, err := s.Plan(lock, opts.Prune)
	var he *catalog.LockHostError
	if errors.As(err, &he) {
		return withHint(usageErrorf("%s is the lock of host %s, not %s", opts.File, he.Lock, he.Host), "pass --host "+he.Lock)
	}
	if err != nil {
		return err
	}
	w := f.IO.Out
	if opts.Check {
		if len(plan.Drift) == 0 {
			_, err := termtext.Fprintf(w, "The installs match %s.\n", opts.File)
			return err
		}
		for _, d := range plan.Drift {
			termtext.Fprintln(w, d.String())
			if d.Kind == "differs" {
				printSyncAdds(ctx, w, s, plan, d)
			}
		}
		return &problemsError{msg: fmt.Sprintf("%d extensions differ from %s", len(plan.Drift), opts.File)}
	}
	if s.Installer, err = f.installer(opts.LockTimeout); err != nil {
		return err
	}
	failed := 0
	s.Apply(ctx, plan, updateAsk(f, opts.Yes), func(r catalog.SyncResult) {
		if r.Err != nil {
			failed++
			printSyncError(f, r)
			return
		}
		switch r.Kind {
		case "extra":
			termtext.Fprintf(w, "Removed %s %s (not in the lock).\n", r.ID, r.Installed)
		case "enable":
			termtext.Fprintf(w, "Enabled %s.\n", r.ID)
		case "disable":
			termtext.Fprintf(w, "Disabled %s.\n", r.ID)
		case "missing":
			termtext.Fprintf(w, "Installed %s %s.\n", r.ID, r.Locked)
			afterInstall(ctx, f, r.Result.Manifest, opts.NoWarm)
		default:
			termtext.Fprintf(w, "Replaced %s %s with %s.\n", r.ID, r.Installed, r.Locked)
			warmPrompt(ctx, f, r.Result.Manifest, opts.NoWarm)
		}
	})
	if failed > 0 {
		fmt.Fprintf(f.IO.ErrOut, "%d of %d changes failed.\n", failed, len(plan.Drift))
		return &exitError{code: ExitFailure}
	}
	if len(plan.Drift) == 0 {
		_, err = termtext.Fprintf(w, "The installs already match %s.\n", opts.File)
	}
	return err
}

// newSyncer is the catalog.Syncer of the command line: npm and marketplace
// entries through the configured clients (offline on their caches), the
// marketplace install policy asked at a terminal as install asks it.
func newSyncer(f *Factory, p *paths.Paths, offline bool) *catalog.Syncer {
	im := &installMarketplace{f: f, opts: &InstallOptions{f: f, Offline: offline}}
	return &catalog.Syncer{Paths: p, Offline: offline, NPM: f.npmClients(p, offline, ""),
		Progress: f.IO.Progress(), Check: updateNameCheck(p),
		Fetch: func() (*fetch.Client, error) {
			lim, err := f.FetchLimits()
			if err != nil {
				return nil, err
			}
			return fetch.New(fetch.Options{HTTP: f.HTTPClient(), Limits: lim}), nil
		},
		Catalog: func() (*catalog.Client, error) {
			ms, err := im.source()
			if err != nil {
				return nil, err
			}
			return ms.c, nil
		},
		Marketplace: func(ctx context.Context, ref install.MarketplaceRef) (*install.Artifact, error) {
			ms, err := im.source()
			if err != nil {
				return nil, err
			}
			return ms.resolve(ctx, ref)
		},
	}
}

// printSyncAdds prints, for --check, what replacing the installed version
// as drift d says would add: what sync asks consent for.
func printSyncAdds(ctx context.Context, w io.Writer, s *catalog.Syncer, plan *catalog.SyncPlan, d install.Drift) {
	a, err := s.Adds(ctx, plan, d)
	if err != nil {
		termtext.Fprintf(w, "  could not read %s to see what it adds: %s\n", d.Locked, err.Error())
		return
	}
	if desc := describeAdds(a); desc != "" {
		termtext.Fprintf(w, "  %s %s; sync needs --yes or a yes at its prompt\n", d.Locked, desc)
	}
}

// printSyncError writes why the change of one extension failed, with a
// hint.
func printSyncError(f *Factory, r catalog.SyncResult) {
	err := r.Err
	var ie *catalog.LockIndexError
	if errors.As(err, &ie) {
		err = withHint(err, "pass --registry "+ie.Locked)
	}
	termtext.Fprintf(f.IO.ErrOut, "Error: %s: %s\n", r.ID, termtext.Multiline(err.Error()))
	if h := hintOf(err); h != "" {
		termtext.Fprintf(f.IO.ErrOut, "Hint: %s\n", h)
	} else if errors.Is(err, errNotConsented) {
		fmt.Fprintln(f.IO.ErrOut, "Hint: pass --yes to accept what it adds")
	}
}
