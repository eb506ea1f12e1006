package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/termtext"
)

// OutdatedOptions are the inputs of `spirit extension outdated`.
type OutdatedOptions struct {
	f  *Factory
	mo *marketplaceOptions
	// AllowSHA1 lets the newer tarballs be read to see what they add.
	AllowSHA1 bool
	// NPMRegistry, when set, is asked about every npm install instead of
	// the registry it was installed from.
	NPMRegistry string
	// CheckURLs downloads URL installs again to see whether they changed.
	CheckURLs bool
}

func newCmdOutdated(f *Factory, runF func(*OutdatedOptions) error) *cobra.Command {
	opts := &OutdatedOptions{f: f, mo: &marketplaceOptions{}}
	cmd := &cobra.Command{
		Use:   "outdated",
		Short: "Show installed extensions that have newer versions, from the marketplace or npm",
		Long: `For each extension installed from this marketplace index (its record names the
index and the extension id; a package of the same name from anywhere else is not
the marketplace's): the installed version, the newest version of its channel, and
what that update adds — requested capabilities, tools, activation events, secret
slots, and tools whose approval it loosens. Installed versions that are now
revoked, or extensions now blocked, are flagged. The newer tarballs are downloaded
(and cached) to read what they add.

For each npm install, like 'npm outdated': the current version, the wanted one
(the newest that satisfies the range or dist-tag it was installed with) and the
registry's latest. Folder, archive and URL installs are named and not checked.
A source that cannot be reached is a warning on its rows; --offline uses the
caches only.`,
		Example: "  spirit extension outdated\n  spirit extension outdated --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runOutdated(cmd.Context(), opts)
		},
	}
	bindMarketplaceFlags(cmd, opts.mo)
	cmd.Flags().BoolVar(&opts.AllowSHA1, "allow-sha1", false, "accept tarballs that only a sha1 digest verifies")
	cmd.Flags().StringVar(&opts.NPMRegistry, "npm-registry", "", "npm registry URL to check every npm install against")
	cmd.Flags().BoolVar(&opts.CheckURLs, "check-urls", false, "download each URL install again and say whether it serves other bytes than the ones installed")
	return cmd
}

// consentTo asks whether replacing version from of id with version to may
// add what adds lists (capabilities, tools, activation events, secret slots,
// a tool's approval loosened): nil when it adds nothing, with yes (--yes), or
// on a yes at the prompt; else an error matching errNotConsented (also when
// no one can be asked). update and sync share it.
func consentTo(f *Factory, yes bool, id, from, to string, adds *catalog.Additions) error {
	s := describeAdds(adds)
	if s == "" || yes {
		return nil
	}
	if ok, _ := f.IO.Prompter().Confirm("Updating %s %s → %s %s. Accept?", id, from, to, s); !ok {
		return fmt.Errorf("%w: %s %s", errNotConsented, to, s)
	}
	return nil
}

func describeAdds(a *catalog.Additions) string {
	if a.Empty() {
		return ""
	}
	var parts []string
	add := func(label string, xs []string) {
		if len(xs) > 0 {
			parts = append(parts, label+": "+strings.Join(xs, ", "))
		}
	}
	add("capabilities", a.Capabilities)
	add("tools", a.Tools)
	add("activation events", a.ActivationEvents)
	add("secret slots", a.SecretSlots)
	var approvals []string
	for _, c := range a.ApprovalModes {
		approvals = append(approvals, c.String())
	}
	if len(parts) == 0 {
		return "loosens approval: " + strings.Join(approvals, ", ")
	}
	s := "adds " + strings.Join(parts, "; ")
	if len(approvals) > 0 {
		s += "; loosens approval: " + strings.Join(approvals, ", ")
	}
	return s
}

func runOutdated(ctx context.Context, opts *OutdatedOptions) error {
	f := opts.f
	c, p, err := f.marketplace(opts.mo)
	if err != nil {
		return err
	}
	u := f.updater(c, p, opts.mo, opts.NPMRegistry)
	u.AllowSHA1, u.CheckURLs = opts.AllowSHA1, opts.CheckURLs
	o, err := u.Statuses(ctx)
	if err != nil {
		return err
	}
	u.CheckSources(ctx, o)
	u.CompleteAdds(ctx, o)
	sts, rows, warnings := o.Extensions, o.Sources, o.Warnings
	if f.Global.JSON {
		if sts == nil {
			sts = []catalog.Status{}
		}
		if warnings == nil {
			warnings = []catalog.Warning{}
		}
		if rows == nil {
			rows = []catalog.SourceStatus{}
		}
		return writeJSON(f.IO.Out, struct {
			Extensions []catalog.Status       `json:"extensions"`
			Sources    []catalog.SourceStatus `json:"sources"`
			Warnings   []catalog.Warning      `json:"warnings"`
		}{sts, rows, warnings})
	}
	printWarnings(f.IO.ErrOut, warnings)
	if o.CatalogErr == nil {
		if err := printMarketplaceOutdated(f, sts); err != nil {
			return err
		}
	}
	return printSourceStatuses(f, rows, opts.mo.Offline)
}

// printMarketplaceOutdated writes the marketplace part of outdated.
func printMarketplaceOutdated(f *Factory, sts []catalog.Status) error {
	var rows []catalog.Status
	for _, st := range sts {
		if st.Outdated || st.Revoked || st.Blocked || st.Error != "" {
			rows = append(rows, st)
		}
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(f.IO.Out, upToDate(len(sts), "marketplace extension"))
		return err
	}
	// The notes are never cut: they say what an update would add.
	cs := f.IO.ColorScheme()
	t := newTablePrinter(f.IO, -1, "ID", "INSTALLED", "CHANNEL", "LATEST", "NOTES")
	for _, st := range rows {
		var notes []string
		if st.Revoked {
			notes = append(notes, "installed version REVOKED")
		}
		if st.Blocked {
			notes = append(notes, "BLOCKED in the marketplace")
		}
		if st.Error != "" {
			notes = append(notes, "error: "+st.Error)
		}
		if s := describeAdds(st.Adds); s != "" {
			notes = append(notes, s)
		}
		latest := st.Latest
		if !st.Outdated {
			latest = "-"
		}
		t.addRow(st.ID, st.Installed, st.Channel, latest, strings.Join(notes, "; "))
		t.colorCell(0, cs.Bold)
		if st.Outdated {
			t.colorCell(3, cs.Green)
		}
		if st.Revoked || st.Blocked || st.Error != "" {
			t.colorCell(4, cs.Red)
		}
	}
	return t.render()
}

// upToDate says that all n items are up to date, in good English for
// none and one.
func upToDate(n int, what string) string {
	switch n {
	case 0:
		return "No " + what + "s to check."
	case 1:
		return "The 1 " + what + " is up to date."
	}
	return fmt.Sprintf("All %s are up to date.", plural(n, what))
}

// UpdateOptions are the inputs of `spirit extension update`.
type UpdateOptions struct {
	f                  *Factory
	mo                 *marketplaceOptions
	IDs                []string
	All                bool
	Yes                bool
	ReviewAcknowledged bool
	AllowSHA1          bool
	LockTimeout        time.Duration
	// Latest goes past what was asked: npm's latest version past the
	// range, the index's default version past the channel followed.
	Latest bool
	// NPMRegistry, when set, is used for every npm install.
	NPMRegistry string
	// NoWarm skips caching the static system prompts of the new versions.
	NoWarm bool
}

func newCmdUpdate(f *Factory, runF func(*UpdateOptions) error) *cobra.Command {
	opts := &UpdateOptions{f: f, mo: &marketplaceOptions{}}
	cmd := &cobra.Command{
		Use:   "update [ID… | --all]",
		Short: "Install the wanted version of installed marketplace and npm extensions",
		Long: `Install the wanted version for each named extension (installed id or marketplace
id), or for every outdated one with --all: for a marketplace install the newest
version of its channel, for an npm install the newest that satisfies the range or
dist-tag it was installed with (--latest: the registry's latest, asking at a
terminal when the major version changes; the recorded range then follows it).
Only extensions installed from this marketplace index are updated from it; folder,
archive and URL installs are skipped with a note. An update that adds requested
capabilities, tools, activation events or secret slots, or that loosens a tool's
approval (need-approval becoming allowed), is applied only with --yes or a yes at
the prompt that lists it; the capabilities are then recorded as granted. The
replaced version is kept for 'spirit extension rollback'.`,
		Example: "  spirit extension update --all\n  spirit extension update @example/spirit-extension --yes",
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.IDs = args
			if len(args) == 0 && !opts.All {
				return usageErrorf("name the extensions to update, or pass --all")
			}
			if len(args) > 0 && opts.All {
				return usageErrorf("--all cannot be used with extension ids")
			}
			if runF != nil {
				return runF(opts)
			}
			return runUpdate(cmd.Context(), opts)
		},
	}
	bindMarketplaceFlags(cmd, opts.mo)
	fl := cmd.Flags()
	fl.BoolVar(&opts.All, "all", false, "update every outdated marketplace extension")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "accept what the updates add without asking")
	fl.BoolVar(&opts.ReviewAcknowledged, "review-acknowledged", false, "accept newer versions that are not verified")
	fl.BoolVar(&opts.AllowSHA1, "allow-sha1", false, "accept tarballs that only a sha1 digest verifies")
	fl.DurationVar(&opts.LockTimeout, "lock-timeout", install.DefaultLockTimeout, "how long to wait for another spirit command")
	fl.BoolVar(&opts.NoWarm, "no-warm", false, "do not start an updated extension to cache its static system prompt (the first prompt or mcp serve then does)")
	fl.BoolVar(&opts.Latest, "latest", false, "go past what was asked: npm's latest version past the range, the index's default version past the channel")
	fl.StringVar(&opts.NPMRegistry, "npm-registry", "", "npm registry URL for every npm install")
	return cmd
}

func runUpdate(ctx context.Context, opts *UpdateOptions) error {
	f := opts.f
	c, p, err := f.marketplace(opts.mo)
	if err != nil {
		return err
	}
	u := f.updater(c, p, opts.mo, opts.NPMRegistry)
	u.AllowSHA1, u.Latest = opts.AllowSHA1, opts.Latest
	ms := &marketplaceSource{f: f, c: c, host: string(p.Host), allowSHA1: opts.AllowSHA1,
		consent: catalog.Consent{ReviewAcknowledged: opts.ReviewAcknowledged}}
	u.Marketplace = ms.resolve
	o, err := u.Statuses(ctx)
	if err != nil {
		return err
	}
	merr := marketplaceError(o.CatalogErr)
	if !f.Global.JSON {
		printWarnings(f.IO.ErrOut, o.Warnings)
	}
	u.CheckSources(ctx, o)
	plan := &catalog.Plan{}
	if opts.All {
		plan = u.PlanAll(o)
	}
	for _, arg := range opts.IDs {
		id, err := installedID(ctx, f, arg)
		if err != nil {
			return err
		}
		skip, err := plan.Add(o, id)
		var nu *catalog.NotUpdatableError
		switch {
		case errors.As(err, &nu) && nu.CatalogErr != nil:
			return merr
		case err != nil:
			in := findInstalled(o.Installed, id)
			if origin := catalogOrigins(ctx, f)(id); in == nil && origin != nil {
				in = findInstalled(o.Installed, origin.PackageName) // the item's package, installed from elsewhere
			}
			if in != nil {
				return withHint(fmt.Errorf("%s is installed from %s, not from the marketplace %s; update replaces only what that marketplace installed",
					in.ID, install.DescribeOrigin(in.Entry, in.Record), catalog.IndexName(c.Source())),
					"to replace it with the marketplace's version: 'spirit extension marketplace install "+id+" --replace'")
			}
			return withHint(err, "see 'spirit extension outdated' for the extensions it knows")
		case skip != nil && !f.Global.JSON:
			termtext.Fprintf(f.IO.ErrOut, "Skipped: %s\nHint: to replace it with the marketplace's version: 'spirit extension marketplace install %s --replace'; to update it, install the new version with --replace\n", skip.Error, id)
		}
	}
	in, err := f.installer(opts.LockTimeout)
	if err != nil {
		return err
	}
	u.Installer = in
	u.Check = updateNameCheck(p)
	failed := 0
	w := f.IO.Out
	results := u.Apply(ctx, plan, o, updateAsk(f, opts.Yes), func(r catalog.UpdateResult) {
		if r.Status == catalog.UpdateDone && r.Result != nil {
			warmPrompt(ctx, f, r.Result.Manifest, opts.NoWarm)
		}
		if r.Status == catalog.UpdateRefused || r.Status == catalog.UpdateFailed {
			failed++
		}
		if !f.Global.JSON {
			printUpdate(f, r)
		}
	})
	if f.Global.JSON {
		if err := writeJSON(w, struct {
			Updates []catalog.UpdateResult `json:"updates"`
		}{results}); err != nil {
			return err
		}
	} else if len(plan.Marketplace) == 0 && len(plan.NPM) == 0 && len(plan.Skipped) == 0 {
		fmt.Fprintln(w, "All marketplace extensions are up to date.")
	}
	if failed > 0 {
		return &exitError{code: ExitFailure}
	}
	return nil
}

// printUpdate writes the outcome of one update: what changed to stdout, an
// error and its hint to stderr.
func printUpdate(f *Factory, r catalog.UpdateResult) {
	w, ew := f.IO.Out, f.IO.ErrOut
	if st := r.Marketplace; st != nil {
		switch r.Status {
		case catalog.UpdateUpToDate:
			termtext.Fprintf(w, "%s is up to date (%s, %s channel).\n", st.ID, st.Installed, st.Channel)
		case catalog.UpdateDone:
			termtext.Fprintf(w, "Updated %s %s → %s", st.ID, st.Installed, st.Latest)
			if s := describeAdds(r.Adds); s != "" {
				termtext.Fprintf(w, " (%s; granted)", s)
			}
			fmt.Fprintln(w)
		case catalog.UpdateRefused:
			termtext.Fprintf(ew, "Error: %s: %v\nHint: pass --yes to accept what it adds\n", st.ID, r.Err)
		default:
			err := r.Err
			if errors.Is(err, install.ErrIdentity) {
				err = withHint(err, "the registry's tarball is not the package its catalog names; do not install it")
			}
			termtext.Fprintf(ew, "Error: %s: %v\n", st.ID, err)
			if h := hintOf(err); h != "" {
				termtext.Fprintf(ew, "Hint: %s\n", h)
			}
		}
		return
	}
	st := r.NPM
	switch r.Status {
	case catalog.UpdateUpToDate:
		termtext.Fprintf(w, "%s is up to date (%s, wanted %s, latest %s).\n", st.ID, st.Current, st.Wanted, st.Latest)
	case catalog.UpdateDone:
		termtext.Fprintf(w, "Updated %s %s → %s (npm %s)\n", st.ID, st.Current, r.To, r.Result.Record.Source)
	default:
		termtext.Fprintf(ew, "Error: %s: %s\n", st.ID, r.Error)
		if r.Status == catalog.UpdateRefused {
			fmt.Fprintln(ew, "Hint: pass --yes to accept what it adds")
		}
	}
}

var errNotConsented = catalog.ErrNotConsented

// updateAsk answers the update's questions: with yes (--yes) every one;
// a major version crossed with --latest is asked only at a terminal (else
// accepted); what an update adds is asked by consentTo.
func updateAsk(f *Factory, yes bool) catalog.Ask {
	return func(q catalog.Question) error {
		if !q.MajorChange {
			return consentTo(f, yes, q.ID, q.From, q.To, q.Adds)
		}
		if yes || !f.IO.CanPrompt() {
			return nil
		}
		if ok, _ := f.IO.Prompter().Confirm("Updating %s %s → %s crosses a major version. Continue?", q.ID, q.From, q.To); !ok {
			return fmt.Errorf("%w: %s crosses a major version", errNotConsented, q.To)
		}
		return nil
	}
}

func findInstalled(list []install.Installed, id string) *install.Installed {
	for i := range list {
		if list[i].ID == id {
			return &list[i]
		}
	}
	return nil
}

// marketplaceFlags says, per installed id, what the cached marketplace index
// now says against the install: its version revoked, the extension blocked.
// It reads only the cache (list must not touch the network); without a
// cache, or when the cache cannot be read, it says nothing.
func marketplaceFlags(ctx context.Context, f *Factory, list []install.Installed) map[string][]string {
	if len(list) == 0 {
		return nil
	}
	c, p, err := f.marketplace(&marketplaceOptions{MaxAge: catalog.DefaultMaxAge, Offline: true})
	if err != nil {
		return nil
	}
	sts, err := c.Statuses(ctx, list, string(p.Host))
	if err != nil {
		return nil
	}
	flags := map[string][]string{}
	for _, st := range sts {
		if st.Revoked {
			flags[st.ID] = append(flags[st.ID], "revoked")
		}
		if st.Blocked {
			flags[st.ID] = append(flags[st.ID], "blocked")
		}
	}
	return flags
}

// marketplaceSource is the Marketplace resolver of an install.Resolver on
// catalog client c: it prepares the version a reference names, applies
// the install policy (asking at a terminal), lets check refuse it, and
// fetches the verified tarball.
type marketplaceSource struct {
	f         *Factory
	c         *catalog.Client
	host      string
	channel   string
	consent   catalog.Consent
	allowSHA1 bool
	// printWarnings writes the detail's warnings to stderr after Prepare.
	printWarnings bool
	// check, when set, runs on the downloaded and verified tarball, before
	// it is handed to the installer.
	check func(p *catalog.Prepared, tarball string) error
	// prepared is the version last prepared, for the caller's output.
	prepared *catalog.Prepared
}

func (s *marketplaceSource) resolve(ctx context.Context, ref install.MarketplaceRef) (*install.Artifact, error) {
	prep, err := s.c.Prepare(ctx, ref.ID, catalog.Selector{Version: ref.Version, Channel: s.channel})
	if errors.Is(err, catalog.ErrBadChannel) {
		return nil, usageErrorf("%v", err)
	}
	if err != nil {
		return nil, marketplaceError(err)
	}
	s.prepared = prep
	if s.printWarnings {
		printWarnings(s.f.IO.ErrOut, prep.Warnings)
	}
	if err := checkPolicy(s.f, prep, s.host, s.consent); err != nil {
		return nil, err
	}
	tb, err := fetchTarball(ctx, s.c, prep, s.allowSHA1)
	if err != nil {
		return nil, err
	}
	if s.check != nil {
		if err := s.check(prep, tb.Path); err != nil {
			if tb.Temporary {
				os.Remove(tb.Path)
			}
			return nil, err
		}
	}
	return s.c.Artifact(prep, tb), nil
}

// resolver returns the install.Resolver that resolves through s.
func (s *marketplaceSource) resolver() *install.Resolver {
	return &install.Resolver{Marketplace: s.resolve}
}
