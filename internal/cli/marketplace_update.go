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

// statuses returns the catalog status of every installed extension the
// marketplace knows, the installs, and the catalog's warnings. Adds holds
// only the capabilities the details list; completeAdds reads the rest.
func statuses(ctx context.Context, f *Factory, c *catalog.Client, host string) ([]catalog.Status, []install.Installed, []catalog.Warning, error) {
	p, err := f.Paths()
	if err != nil {
		return nil, nil, nil, err
	}
	installed, err := install.List(p)
	if err != nil {
		return nil, nil, nil, err
	}
	cat, err := c.Catalog(ctx)
	if err != nil {
		return nil, nil, nil, marketplaceError(err)
	}
	sts, err := c.Statuses(ctx, installed, host)
	if err != nil {
		return nil, nil, nil, marketplaceError(err)
	}
	return sts, installed, cat.Warnings, nil
}

// completeAdds completes the Adds of each outdated status from the newer
// tarball's manifest, and returns a warning for each it cannot read.
func completeAdds(ctx context.Context, c *catalog.Client, sts []catalog.Status, installed []install.Installed, allowSHA1 bool) []catalog.Warning {
	var warnings []catalog.Warning
	for i := range sts {
		st := &sts[i]
		if !st.Outdated {
			continue
		}
		adds, err := fullAdditions(ctx, c, st, findInstalled(installed, st.ID), allowSHA1)
		if err != nil {
			warnings = append(warnings, catalog.Warning{Pointer: st.ID,
				Message: "could not read " + st.Latest + " to see what it adds beyond capabilities: " + err.Error()})
			continue
		}
		st.Adds = adds
	}
	return warnings
}

func findInstalled(list []install.Installed, id string) *install.Installed {
	for i := range list {
		if list[i].ID == id {
			return &list[i]
		}
	}
	return nil
}

// fullAdditions reads the tarball of st.Latest and diffs its manifest with
// the installed one (capabilities against those recorded as granted).
func fullAdditions(ctx context.Context, c *catalog.Client, st *catalog.Status, in *install.Installed, allowSHA1 bool) (*catalog.Additions, error) {
	if in == nil {
		return nil, errors.New("not installed")
	}
	prep, err := c.Prepare(ctx, st.ExtensionID, catalog.Selector{Version: st.Latest})
	if err != nil {
		return nil, err
	}
	tb, err := c.Tarball(ctx, prep, allowSHA1)
	if err != nil {
		return nil, err
	}
	if tb.Temporary {
		defer os.Remove(tb.Path)
	}
	return additionsOf(in, tb.Path)
}

// additionsOf diffs the manifest of the tarball file with the installed
// one (capabilities against those recorded as granted).
func additionsOf(in *install.Installed, file string) (*catalog.Additions, error) {
	m, err := catalog.PackageManifest(file)
	if err != nil {
		return nil, err
	}
	var granted []string
	if in.Record != nil {
		granted = in.Record.GrantedCapabilities
	}
	a := catalog.Diff(in.Manifest, m, granted)
	return &a, nil
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
	sts, installed, warnings, merr := statusesOrWarning(ctx, f, c, string(p.Host))
	if installed == nil && merr != nil {
		return merr
	}
	nc := &npmClients{f: f, cacheDir: p.CacheDir(), registry: opts.NPMRegistry, offline: opts.mo.Offline, checkURLs: opts.CheckURLs}
	rows := sourceStatuses(ctx, nc, installed)
	warnings = append(warnings, completeAdds(ctx, c, sts, installed, opts.AllowSHA1)...)
	if f.Global.JSON {
		if sts == nil {
			sts = []catalog.Status{}
		}
		if warnings == nil {
			warnings = []catalog.Warning{}
		}
		if rows == nil {
			rows = []sourceStatus{}
		}
		return writeJSON(f.IO.Out, struct {
			Extensions []catalog.Status  `json:"extensions"`
			Sources    []sourceStatus    `json:"sources"`
			Warnings   []catalog.Warning `json:"warnings"`
		}{sts, rows, warnings})
	}
	printWarnings(f.IO.ErrOut, warnings)
	if merr == nil {
		if err := printMarketplaceOutdated(f, sts); err != nil {
			return err
		}
	}
	return printSourceStatuses(f, rows, opts.mo.Offline)
}

// statusesOrWarning is statuses, with a marketplace index that cannot be
// read turned into a warning (when a marketplace install needs it) and
// the installs still listed. Only a failure to list the installs is
// returned with installed nil.
func statusesOrWarning(ctx context.Context, f *Factory, c *catalog.Client, host string) ([]catalog.Status, []install.Installed, []catalog.Warning, error) {
	sts, installed, warnings, err := statuses(ctx, f, c, host)
	if err == nil {
		return sts, installed, warnings, nil
	}
	p, perr := f.Paths()
	if perr != nil {
		return nil, nil, nil, perr
	}
	list, lerr := install.List(p)
	if lerr != nil {
		return nil, nil, nil, lerr
	}
	for i := range list {
		if install.KindOf(list[i].Record) == install.KindMarketplace {
			warnings = append(warnings, catalog.Warning{Pointer: catalog.IndexName(c.Source()),
				Message: "marketplace extensions not checked: " + err.Error()})
			break
		}
	}
	return nil, list, warnings, err
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

// updateResultJSON is one extension in `update --json`.
type updateResultJSON struct {
	ID       string             `json:"id"`
	From     string             `json:"from"`
	To       string             `json:"to,omitempty"`
	Channel  string             `json:"channel,omitempty"`
	Status   string             `json:"status"` // updated | up-to-date | refused | failed | skipped
	Kind     string             `json:"kind,omitempty"`
	Adds     *catalog.Additions `json:"adds,omitempty"`
	Error    string             `json:"error,omitempty"`
	Granted  []string           `json:"grantedCapabilities,omitempty"`
	Rollback string             `json:"rollbackVersion,omitempty"`
}

func runUpdate(ctx context.Context, opts *UpdateOptions) error {
	f := opts.f
	c, p, err := f.marketplace(opts.mo)
	if err != nil {
		return err
	}
	host := string(p.Host)
	sts, installed, warnings, merr := statusesOrWarning(ctx, f, c, host)
	if installed == nil && merr != nil {
		return merr
	}
	if !f.Global.JSON {
		printWarnings(f.IO.ErrOut, warnings)
	}
	if opts.Latest {
		latestPastChannel(sts)
	}
	nc := &npmClients{f: f, cacheDir: p.CacheDir(), registry: opts.NPMRegistry, offline: opts.mo.Offline}
	rows := sourceStatuses(ctx, nc, installed)
	var targets []catalog.Status
	var npmTargets []*sourceStatus
	var skipped []updateResultJSON
	if opts.All {
		for _, st := range sts {
			if st.Outdated {
				targets = append(targets, st)
			}
		}
		for i := range rows {
			if rows[i].Kind == rowNPM && newer(rows[i].target(opts.Latest), rows[i].Current) {
				npmTargets = append(npmTargets, &rows[i])
			}
		}
	} else {
		for _, arg := range opts.IDs {
			id, err := installedID(ctx, f, arg)
			if err != nil {
				return err
			}
			found := false
			for _, st := range sts {
				if st.ID == id || st.ExtensionID == id {
					targets, found = append(targets, st), true
					break
				}
			}
			for i := range rows {
				if found || rows[i].ID != id {
					continue
				}
				found = true
				if rows[i].Kind == rowNPM {
					npmTargets = append(npmTargets, &rows[i])
					continue
				}
				r := updateResultJSON{ID: id, From: rows[i].Current, Kind: rows[i].Kind, Status: "skipped"}
				in := rows[i].in
				r.Error = fmt.Sprintf("%s is installed from %s (%s); update does not replace %s installs",
					id, install.DescribeOrigin(in.Entry, in.Record), rows[i].Kind, rows[i].Kind)
				skipped = append(skipped, r)
				if !f.Global.JSON {
					termtext.Fprintf(f.IO.ErrOut, "Skipped: %s\nHint: to replace it with the marketplace's version: 'spirit extension marketplace install %s --replace'; to update it, install the new version with --replace\n", r.Error, id)
				}
			}
			if !found && merr != nil {
				return merr
			}
			if !found {
				in := findInstalled(installed, id)
				if o := catalogOrigins(ctx, f)(id); in == nil && o != nil {
					in = findInstalled(installed, o.PackageName) // the item's package, installed from elsewhere
				}
				if in != nil {
					return withHint(fmt.Errorf("%s is installed from %s, not from the marketplace %s; update replaces only what that marketplace installed",
						in.ID, install.DescribeOrigin(in.Entry, in.Record), catalog.IndexName(c.Source())),
						"to replace it with the marketplace's version: 'spirit extension marketplace install "+id+" --replace'")
				}
				return withHint(fmt.Errorf("%s is not an installed extension that the marketplace knows", id),
					"see 'spirit extension outdated' for the extensions it knows")
			}
		}
	}
	in, err := f.installer(opts.LockTimeout)
	if err != nil {
		return err
	}
	results := append([]updateResultJSON{}, skipped...)
	failed := 0
	w := f.IO.Out
	for _, st := range targets {
		r := updateResultJSON{ID: st.ID, From: st.Installed, Channel: st.Channel, Adds: st.Adds}
		if !st.Outdated {
			r.Status = "up-to-date"
			results = append(results, r)
			if !f.Global.JSON {
				termtext.Fprintf(w, "%s is up to date (%s, %s channel).\n", st.ID, st.Installed, st.Channel)
			}
			continue
		}
		r.To = st.Latest
		res, adds, err := updateOne(ctx, opts, c, in, host, st, findInstalled(installed, st.ID))
		if adds != nil {
			r.Adds = adds
		}
		switch {
		case err == nil:
			r.Status = "updated"
			r.Granted = res.Record.GrantedCapabilities
			warmPrompt(ctx, f, res.Manifest, opts.NoWarm)
			r.Rollback = res.Previous
			if !f.Global.JSON {
				termtext.Fprintf(w, "Updated %s %s → %s", st.ID, st.Installed, st.Latest)
				if s := describeAdds(r.Adds); s != "" {
					termtext.Fprintf(w, " (%s; granted)", s)
				}
				fmt.Fprintln(w)
			}
		case errors.Is(err, errNotConsented):
			r.Status, r.Error = "refused", err.Error()
			failed++
			if !f.Global.JSON {
				termtext.Fprintf(f.IO.ErrOut, "Error: %s: %v\nHint: pass --yes to accept what it adds\n", st.ID, err)
			}
		default:
			r.Status, r.Error = "failed", err.Error()
			failed++
			if !f.Global.JSON {
				termtext.Fprintf(f.IO.ErrOut, "Error: %s: %v\n", st.ID, err)
				if h := hintOf(err); h != "" {
					termtext.Fprintf(f.IO.ErrOut, "Hint: %s\n", h)
				}
			}
		}
		results = append(results, r)
	}
	for _, st := range npmTargets {
		r := updateResultJSON{ID: st.ID, From: st.Current, Kind: rowNPM}
		to := st.target(opts.Latest)
		switch {
		case st.Warning != "":
			r.Status, r.Error = "failed", st.Warning
		case !newer(to, st.Current):
			r.Status = "up-to-date"
			if !f.Global.JSON {
				termtext.Fprintf(w, "%s is up to date (%s, wanted %s, latest %s).\n", st.ID, st.Current, st.Wanted, st.Latest)
			}
			results = append(results, r)
			continue
		}
		if r.Status == "" {
			r.To = to
			res, err := updateNPM(ctx, opts, nc, in, st)
			if err != nil {
				r.Status, r.Error = "failed", err.Error()
				if errors.Is(err, errNotConsented) {
					r.Status = "refused"
				}
			} else {
				r.Status, r.Granted, r.Rollback = "updated", res.Record.GrantedCapabilities, res.Previous
				warmPrompt(ctx, f, res.Manifest, opts.NoWarm)
				if !f.Global.JSON {
					termtext.Fprintf(w, "Updated %s %s → %s (npm %s)\n", st.ID, st.Current, to, res.Record.Source)
				}
			}
		}
		if r.Status != "updated" {
			failed++
			if !f.Global.JSON {
				termtext.Fprintf(f.IO.ErrOut, "Error: %s: %s\n", st.ID, r.Error)
				if r.Status == "refused" {
					fmt.Fprintln(f.IO.ErrOut, "Hint: pass --yes to accept what it adds")
				}
			}
		}
		results = append(results, r)
	}
	if f.Global.JSON {
		if err := writeJSON(w, struct {
			Updates []updateResultJSON `json:"updates"`
		}{results}); err != nil {
			return err
		}
	} else if len(targets) == 0 && len(npmTargets) == 0 && len(skipped) == 0 {
		fmt.Fprintln(w, "All marketplace extensions are up to date.")
	}
	if failed > 0 {
		return &exitError{code: ExitFailure}
	}
	return nil
}

var errNotConsented = errors.New("the update was not accepted")

// latestPastChannel makes the index's default version the target of every
// status where it is newer than both the installed version and the newest
// of the channel followed; the install then follows the default's channel.
func latestPastChannel(sts []catalog.Status) {
	for i := range sts {
		st := &sts[i]
		base := st.Installed
		if st.Latest != "" && catalog.Newer(st.Latest, base) {
			base = st.Latest
		}
		if st.Default != "" && catalog.Newer(st.Default, base) {
			st.Latest, st.Channel, st.Outdated = st.Default, st.DefaultChannel, true
		}
	}
}

// updateOne installs st.Latest over installed, after the install policy
// and, when the downloaded version adds anything, the user's consent. It
// returns what the version adds, once it is known.
func updateOne(ctx context.Context, opts *UpdateOptions, c *catalog.Client, in *install.Installer, host string, st catalog.Status, installed *install.Installed) (*install.Result, *catalog.Additions, error) {
	f := opts.f
	if installed == nil {
		return nil, nil, fmt.Errorf("%s is not installed", st.ID)
	}
	if opts.Latest && major(st.Latest) != major(st.Installed) && !opts.Yes && f.IO.CanPrompt() {
		if ok, _ := f.IO.Prompter().Confirm("Updating %s %s → %s crosses a major version. Continue?", st.ID, st.Installed, st.Latest); !ok {
			return nil, nil, fmt.Errorf("%w: %s crosses a major version", errNotConsented, st.Latest)
		}
	}
	var adds *catalog.Additions
	ms := &marketplaceSource{f: f, c: c, host: host, allowSHA1: opts.AllowSHA1,
		consent: catalog.Consent{ReviewAcknowledged: opts.ReviewAcknowledged},
		check: func(_ *catalog.Prepared, tarball string) error {
			// Consent is asked for what the bytes about to be installed add.
			a, err := additionsOf(installed, tarball)
			if err != nil {
				return err
			}
			adds = a
			return consentTo(f, opts.Yes, st.ID, st.Installed, st.Latest, a)
		}}
	art, err := ms.resolver().ResolveMarketplace(ctx, install.MarketplaceRef{ID: st.ExtensionID, Version: st.Latest})
	if err != nil {
		return nil, adds, err
	}
	defer art.Close()
	req := art.Request(true, false)
	req.Channel = st.Channel
	owner := catalog.OriginOf(c.Source(), ms.prepared.Item)
	req.Owner = &owner
	res, err := in.Install(ctx, req)
	if errors.Is(err, install.ErrIdentity) {
		return nil, adds, withHint(err, "the registry's tarball is not the package its catalog names; do not install it")
	}
	return res, adds, err
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
	a := &install.Artifact{
		Path:             tb.Path,
		MarketplaceIndex: catalog.IndexName(s.c.Source()),
		Source:           install.MarketplacePrefix + prep.Item.ExtensionID + "@" + prep.Version.Version,
		ResolvedURL:      prep.TarballLocation(),
		Integrity:        tb.Integrity,
		ArchiveFileName:  prep.SourceFileName,
		MarketplaceID:    prep.Item.ExtensionID, Channel: prep.Version.Channel, ReviewStatus: prep.Version.ReviewStatus,
		ExpectName: prep.Item.PackageName, ExpectVersion: prep.Version.Version,
	}
	if tb.Temporary {
		a.OnClose(func() { os.Remove(tb.Path) })
	}
	return a, nil
}

// resolver returns the install.Resolver that resolves through s.
func (s *marketplaceSource) resolver() *install.Resolver {
	return &install.Resolver{Marketplace: s.resolve}
}
