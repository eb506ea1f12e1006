package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/catalog/verify"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/paths"
)

// addMarketplaceCommands adds `marketplace …`, `outdated` and `update` to
// the extension group.
func addMarketplaceCommands(parent *cobra.Command, f *Factory) {
	mo := &marketplaceOptions{}
	mk := &cobra.Command{
		Use:   "marketplace [command]",
		Short: "Find and install extensions from the marketplace",
		Long: `Find and install extensions from the marketplace index: the official one, or the
https URL, folder or git repository that --registry (or SPIRIT_REGISTRY) names.
Responses are cached; a cached copy younger than --max-age is used as it is, an
older one is revalidated, and when the network is down the cache is used.

With no subcommand it lists the catalog, as 'marketplace list'.`,
		Example: `  spirit extension marketplace search prompt
  spirit extension marketplace detail spiritagent.system-message-demo
  spirit extension marketplace install spiritagent.system-message-demo --channel stable
  spirit --registry ./my-registry extension marketplace list --all`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMarketplaceList(cmd.Context(), &MarketplaceListOptions{f: f, mo: mo, Query: args})
		},
	}
	pf := mk.PersistentFlags()
	pf.DurationVar(&mo.MaxAge, "max-age", catalog.DefaultMaxAge, "use cached registry responses (and git clones) younger than this without asking again")
	pf.BoolVar(&mo.Offline, "offline", false, "use only the cache")
	mk.AddCommand(
		newCmdMarketplaceList(f, mo, nil),
		newCmdMarketplaceDetail(f, mo, nil),
		newCmdMarketplaceReadme(f, mo, nil),
		newCmdMarketplaceInstall(f, mo, nil),
		newCmdMarketplaceTrust(f, nil),
	)
	parent.AddCommand(mk, newCmdOutdated(f, nil), newCmdUpdate(f, nil))
}

// marketplaceOptions are the flags every marketplace command shares.
type marketplaceOptions struct {
	MaxAge  time.Duration
	Offline bool
}

func bindMarketplaceFlags(cmd *cobra.Command, mo *marketplaceOptions) {
	cmd.Flags().DurationVar(&mo.MaxAge, "max-age", catalog.DefaultMaxAge, "use cached registry responses (and git clones) younger than this without asking again")
	cmd.Flags().BoolVar(&mo.Offline, "offline", false, "use only the cache")
}

// marketplace returns the catalog client of --registry and the host's paths.
func (f *Factory) marketplace(mo *marketplaceOptions) (*catalog.Client, *paths.Paths, error) {
	p, err := f.Paths()
	if err != nil {
		return nil, nil, err
	}
	maxAge := catalog.DefaultMaxAge
	offline := false
	if mo != nil {
		maxAge, offline = mo.MaxAge, mo.Offline
	}
	lim, err := f.FetchLimits()
	if err != nil {
		return nil, nil, err
	}
	c, err := catalog.New(catalog.Options{
		Source:     f.RegistrySource(),
		CacheDir:   p.CacheDir(),
		HTTPClient: f.HTTPClient(),
		Fetch:      lim,
		MaxAge:     maxAge,
		Offline:    offline,
		Now:        f.Now,
		Progress:   f.IO.Progress(),
		// signed indexes: see signing_cmds.go
		TrustDir:      p.TrustDir(),
		RequireSigned: f.requireSigned(),
		AllowExpired:  f.Global.AllowExpiredIndex,
		OnSignature:   f.signatureNotice,
	})
	if err != nil {
		return nil, nil, usageErrorf("--registry: %v", err)
	}
	return c, p, nil
}

// printWarnings writes warnings to stderr, one a line.
func printWarnings(w io.Writer, ws []catalog.Warning) {
	for _, x := range ws {
		termtext.Fprintf(w, "Warning: %s\n", x)
	}
}

// marketplaceError adds the hint that fits a catalog error.
func marketplaceError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, catalog.ErrOffline):
		return withHint(err, "run once without --offline to fill the cache")
	case errors.Is(err, catalog.ErrInsecureURL):
		return withHint(err, "use https (plain http is accepted only for localhost)")
	case errors.As(err, new(*catalog.NotInCatalogError)):
		return withHint(err, "see 'spirit extension marketplace list --all' for the ids")
	case errors.Is(err, catalog.ErrNoVersion):
		return withHint(err, "see 'spirit extension marketplace detail ID' for the versions")
	case errors.As(err, new(*verify.Error)):
		return signatureError(err)
	}
	return err
}

// MarketplaceListOptions are the inputs of `marketplace list` and `search`.
type MarketplaceListOptions struct {
	f     *Factory
	mo    *marketplaceOptions
	Query []string
	All   bool
	// Long prints every field as key/value blocks instead of a table.
	Long bool
}

func newCmdMarketplaceList(f *Factory, mo *marketplaceOptions, runF func(*MarketplaceListOptions) error) *cobra.Command {
	opts := &MarketplaceListOptions{f: f, mo: mo}
	cmd := &cobra.Command{
		Use:     "list [QUERY…]",
		Aliases: []string{"search"},
		Short:   "List or search the marketplace catalog",
		Long: `List the catalog, or the items whose display name, description, id, package
name, keywords or author contain QUERY (the words joined by spaces, any case).
Hidden and blocked items are left out unless --all; an installed extension shows
its version, and is flagged when that version is now revoked or blocked.

On a terminal the items are a table (id, version, review, status, description
cut to the terminal width); through a pipe each item is one line of
tab-separated fields, never cut. --long prints every field as key/value blocks.`,
		Example: "  spirit extension marketplace list\n  spirit extension marketplace search system prompt --json\n  spirit extension marketplace list --long",
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = args
			if runF != nil {
				return runF(opts)
			}
			return runMarketplaceList(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "also show hidden and blocked items")
	cmd.Flags().BoolVarP(&opts.Long, "long", "l", false, "print every field as key/value blocks")
	return cmd
}

// marketplaceItemJSON is one item of `marketplace list --json`.
type marketplaceItemJSON struct {
	catalog.Item
	Installed *installedStateJSON `json:"installed"`
}

type installedStateJSON struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	Revoked bool   `json:"revoked,omitempty"`
	Blocked bool   `json:"blocked,omitempty"`
}

type marketplaceListJSON struct {
	Registry  string                `json:"registry"`
	FromCache bool                  `json:"fromCache"`
	Stale     bool                  `json:"stale,omitempty"`
	Items     []marketplaceItemJSON `json:"items"`
	Warnings  []catalog.Warning     `json:"warnings"`
	// Signature is the verified signed index; absent when unsigned.
	Signature *verify.Index `json:"signature,omitempty"`
}

func runMarketplaceList(ctx context.Context, opts *MarketplaceListOptions) error {
	f := opts.f
	c, p, err := f.marketplace(opts.mo)
	if err != nil {
		return err
	}
	cat, err := c.Catalog(ctx)
	if err != nil {
		return marketplaceError(err)
	}
	items := catalog.Search(cat.Items, strings.Join(opts.Query, " "), opts.All)
	installed, _ := install.List(p)
	byItem := catalog.InstalledByItem(cat, c.Source(), installed)
	out := marketplaceListJSON{Registry: catalog.IndexName(c.Source()), Items: []marketplaceItemJSON{}, Warnings: cat.Warnings}
	if cat.Origin != nil {
		out.FromCache, out.Stale = cat.Origin.FromCache, cat.Origin.Stale
	}
	out.Signature, _ = c.Signature(ctx)
	if out.Warnings == nil {
		out.Warnings = []catalog.Warning{}
	}
	for _, it := range items {
		j := marketplaceItemJSON{Item: it}
		if in := byItem[it.ExtensionID]; in != nil {
			st := &installedStateJSON{ID: in.ID, Version: in.Version(), Blocked: it.Status == catalog.StatusBlocked}
			if d, _, err := c.Detail(ctx, it.ExtensionID); err == nil {
				if v := d.Find(st.Version); v != nil && v.ReviewStatus == catalog.ReviewRevoked {
					st.Revoked = true
				}
			}
			j.Installed = st
		}
		out.Items = append(out.Items, j)
	}
	if f.Global.JSON {
		return writeJSON(f.IO.Out, out)
	}
	printWarnings(f.IO.ErrOut, cat.Warnings)
	if line := signatureLine(out.Signature); line != "" {
		termtext.Fprintf(f.IO.ErrOut, "%s\n", line)
	}
	w := f.IO.Out
	if len(out.Items) == 0 {
		_, err := fmt.Fprintln(w, "No marketplace extensions found.")
		return err
	}
	defer f.startPager()()
	if !opts.Long {
		return printMarketplaceTable(f, out.Items)
	}
	w = f.IO.Out
	fmt.Fprintln(w, "Marketplace catalog:")
	for _, j := range out.Items {
		it := j.Item
		name := it.DisplayName
		switch it.Status {
		case catalog.StatusListed:
		default:
			name += " (" + it.Status + ")"
		}
		termtext.Fprintf(w, "  - %s\n    id: %s\n    package: %s\n    version: %s\n    status: %s\n    review: %s\n",
			name, it.ExtensionID, it.PackageName, it.DefaultVersion, it.Status, it.DefaultReviewStatus)
		state := "Not installed"
		if s := j.Installed; s != nil {
			state = "Installed " + s.Version
			if s.Revoked {
				state += " (this version's review was revoked)"
			}
			if s.Blocked {
				state += " (blocked in the marketplace)"
			}
		}
		termtext.Fprintf(w, "    installed: %s\n", state)
		if strings.TrimSpace(it.Description) != "" {
			termtext.Fprintf(w, "    description: %s\n", it.Description)
		}
		if len(it.Keywords) > 0 {
			termtext.Fprintf(w, "    keywords: %s\n", strings.Join(it.Keywords, ", "))
		}
		if len(it.SupportedHosts) > 0 {
			termtext.Fprintf(w, "    hosts: %s\n", strings.Join(it.SupportedHosts, ", "))
		}
	}
	return nil
}

// printMarketplaceTable prints the table of `marketplace list`: the
// status says what is not plain (a listed item not installed is "-").
func printMarketplaceTable(f *Factory, items []marketplaceItemJSON) error {
	cs := f.IO.ColorScheme()
	t := newTablePrinter(f.IO, 4, "ID", "VERSION", "REVIEW", "STATUS", "DESCRIPTION")
	for _, j := range items {
		it := j.Item
		var status []string
		if it.Status != catalog.StatusListed && it.Status != "" {
			status = append(status, it.Status)
		}
		if s := j.Installed; s != nil {
			status = append(status, "installed "+s.Version)
			if s.Revoked {
				status = append(status, "revoked")
			}
		}
		if len(status) == 0 {
			status = []string{"-"}
		}
		t.addRow(it.ExtensionID, it.DefaultVersion, it.DefaultReviewStatus, strings.Join(status, ", "), strings.TrimSpace(it.Description))
		t.colorCell(0, cs.Bold)
		switch it.DefaultReviewStatus {
		case catalog.ReviewVerified:
			t.colorCell(2, cs.Green)
		case catalog.ReviewRevoked:
			t.colorCell(2, cs.Red)
		default:
			t.colorCell(2, cs.Yellow)
		}
		switch {
		case it.Status == catalog.StatusBlocked || (j.Installed != nil && j.Installed.Revoked):
			t.colorCell(3, cs.Red)
		case j.Installed != nil:
			t.colorCell(3, cs.Green)
		default:
			t.colorCell(3, cs.Gray)
		}
	}
	return t.render()
}

// MarketplaceDetailOptions are the inputs of `marketplace detail`.
type MarketplaceDetailOptions struct {
	f  *Factory
	mo *marketplaceOptions
	ID string
}

func newCmdMarketplaceDetail(f *Factory, mo *marketplaceOptions, runF func(*MarketplaceDetailOptions) error) *cobra.Command {
	opts := &MarketplaceDetailOptions{f: f, mo: mo}
	return &cobra.Command{
		Use:     "detail ID",
		Short:   "Show an extension's marketplace detail: versions, channels, review status",
		Example: "  spirit extension marketplace detail spiritagent.system-message-demo",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runMarketplaceDetail(cmd.Context(), opts)
		},
	}
}

func runMarketplaceDetail(ctx context.Context, opts *MarketplaceDetailOptions) error {
	f := opts.f
	c, _, err := f.marketplace(opts.mo)
	if err != nil {
		return err
	}
	d, _, err := c.Detail(ctx, opts.ID)
	if err != nil {
		return marketplaceError(err)
	}
	if f.Global.JSON {
		if d.Warnings == nil {
			d.Warnings = []catalog.Warning{}
		}
		return writeJSON(f.IO.Out, d)
	}
	printWarnings(f.IO.ErrOut, d.Warnings)
	if line := signatureLine(d.Signature); line != "" {
		termtext.Fprintf(f.IO.ErrOut, "%s\n", line)
	}
	w := f.IO.Out
	featured := "no"
	if d.Featured {
		featured = "yes"
	}
	termtext.Fprintf(w, "id: %s\npackage: %s\nstatus: %s\nfeatured: %s\ndefault_version: %s\nreadme_path: %s\nversions:\n",
		d.ExtensionID, d.PackageName, d.Status, featured, d.DefaultVersion, d.ReadmePath)
	for _, v := range d.Versions {
		termtext.Fprintf(w, "  - %s\n    channel: %s\n    review: %s\n    name: %s\n    description: %s\n",
			v.Version, v.Channel, v.ReviewStatus, v.DisplayName, v.Description)
		if len(v.SupportedHosts) > 0 {
			termtext.Fprintf(w, "    hosts: %s\n", strings.Join(v.SupportedHosts, ", "))
		}
		if v.Changelog != nil {
			termtext.Fprintf(w, "    changelog: %s\n", v.Changelog.Summary)
		}
	}
	return nil
}

// MarketplaceReadmeOptions are the inputs of `marketplace readme`.
type MarketplaceReadmeOptions struct {
	f  *Factory
	mo *marketplaceOptions
	ID string
}

func newCmdMarketplaceReadme(f *Factory, mo *marketplaceOptions, runF func(*MarketplaceReadmeOptions) error) *cobra.Command {
	opts := &MarketplaceReadmeOptions{f: f, mo: mo}
	return &cobra.Command{
		Use:     "readme ID",
		Short:   "Print an extension's README (raw markdown)",
		Example: "  spirit extension marketplace readme spiritagent.system-message-demo | less",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runMarketplaceReadme(cmd.Context(), opts)
		},
	}
}

func runMarketplaceReadme(ctx context.Context, opts *MarketplaceReadmeOptions) error {
	f := opts.f
	c, _, err := f.marketplace(opts.mo)
	if err != nil {
		return err
	}
	text, warnings, err := c.Readme(ctx, opts.ID)
	if err != nil {
		return marketplaceError(err)
	}
	if f.Global.JSON {
		return writeJSON(f.IO.Out, struct {
			ExtensionID string `json:"extensionId"`
			Readme      string `json:"readme"`
		}{strings.TrimSpace(opts.ID), text})
	}
	printWarnings(f.IO.ErrOut, warnings)
	defer f.startPager()()
	_, err = termtext.Fprintln(f.IO.Out, termtext.Multiline(text))
	return err
}

// MarketplaceInstallOptions are the inputs of `marketplace install`.
type MarketplaceInstallOptions struct {
	f                  *Factory
	mo                 *marketplaceOptions
	ID                 string
	Version            string
	Channel            string
	ReviewAcknowledged bool
	AllowRevoked       bool
	AllowSHA1          bool
	Yes                bool
	// Replace lets the install replace one that did not come from this
	// marketplace entry (a local archive, npm, a URL, another index).
	Replace     bool
	LockTimeout time.Duration
	// AllowNameCollision installs even when the extension's tools would
	// share invocation names with an installed extension's.
	AllowNameCollision bool
	// NoWarm skips caching the static system prompt after the install.
	NoWarm bool
}

func newCmdMarketplaceInstall(f *Factory, mo *marketplaceOptions, runF func(*MarketplaceInstallOptions) error) *cobra.Command {
	opts := &MarketplaceInstallOptions{f: f, mo: mo}
	cmd := &cobra.Command{
		Use:   "install ID",
		Short: "Install an extension from the marketplace",
		Long: `Install an extension from the marketplace. ID is the marketplace extensionId (or
its package name). The version is --version exactly, else the highest of
--channel (stable, preview or experimental), else the detail's default version.

Blocked extensions are refused; an unverified version needs --review-acknowledged
(or a yes at the prompt); a revoked one needs --allow-revoked. Host support is
checked before the download; the tarball must match the strongest digest its
integrity lists, and its package.json name and version must be the catalog's.
An installed extension of the same id that did not come from this item of this
index (a local archive, npm, a URL, another index) is replaced only with --replace.`,
		Example: `  spirit extension marketplace install spiritagent.system-message-demo
  spirit extension marketplace install example.tool --channel preview --review-acknowledged
  spirit extension marketplace install example.tool --version 1.2.0`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if opts.Version != "" && opts.Channel != "" {
				return usageErrorf("--version and --channel cannot be used together")
			}
			if runF != nil {
				return runF(opts)
			}
			return runMarketplaceInstall(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Version, "version", "", "install exactly this version")
	fl.StringVar(&opts.Channel, "channel", "", "install the highest version of this channel: stable, preview or experimental")
	fl.BoolVar(&opts.ReviewAcknowledged, "review-acknowledged", false, "install a version that is not verified")
	fl.BoolVar(&opts.AllowRevoked, "allow-revoked", false, "install a version whose review was revoked")
	fl.BoolVar(&opts.AllowSHA1, "allow-sha1", false, "accept a tarball that only a sha1 digest verifies")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask before a downgrade")
	fl.BoolVar(&opts.Replace, "replace", false, "replace an installed extension with the same id that did not come from this marketplace entry")
	fl.DurationVar(&opts.LockTimeout, "lock-timeout", install.DefaultLockTimeout, "how long to wait for another spirit command")
	fl.BoolVar(&opts.AllowNameCollision, "allow-name-collision", false, "install even if its tool names collide with an installed extension's")
	fl.BoolVar(&opts.NoWarm, "no-warm", false, noWarmUsage)
	return cmd
}

// checkPolicy applies the install policy, asking at a terminal for an
// unverified version.
func checkPolicy(f *Factory, p *catalog.Prepared, host string, consent catalog.Consent) error {
	err := p.Check(host, consent)
	ref := p.Item.ExtensionID + "@" + p.Version.Version
	switch {
	case errors.Is(err, catalog.ErrUnverified):
		if ok, _ := f.IO.Prompter().Confirm("Extension %s is not verified by the marketplace. Install it anyway?", ref); ok {
			consent.ReviewAcknowledged = true
			return p.Check(host, consent)
		}
		return withHint(fmt.Errorf("Extension %s is not verified. Pass --review-acknowledged to continue.", ref),
			"read its README and source first: 'spirit extension marketplace readme "+p.Item.ExtensionID+"'")
	case errors.Is(err, catalog.ErrRevoked):
		return withHint(err, "the marketplace withdrew its approval; pass --allow-revoked only if you trust this version")
	case errors.Is(err, catalog.ErrHostUnsupported):
		return withHint(err, "choose another --version, or install it on a host it supports with --host")
	}
	return err
}

// fetchTarball downloads p's tarball with the hints that fit its errors.
func fetchTarball(ctx context.Context, c *catalog.Client, p *catalog.Prepared, allowSHA1 bool) (*npm.Tarball, error) {
	tb, err := c.Tarball(ctx, p, allowSHA1)
	switch {
	case errors.Is(err, npm.ErrWeakIntegrity):
		return nil, withHint(err, "pass --allow-sha1 to accept a sha1-only digest")
	case errors.Is(err, npm.ErrIntegrity):
		return nil, withHint(fmt.Errorf("Extension tarball integrity verification failed: %s@%s: %w", p.Item.ExtensionID, p.Version.Version, err),
			"the tarball differs from what the registry published; do not install it")
	}
	return tb, err
}

// marketplaceInstalledJSON is the --json result of a marketplace install.
type marketplaceInstalledJSON struct {
	installedJSON
	ReviewStatus string            `json:"reviewStatus"`
	Previous     string            `json:"previous,omitempty"`
	Warnings     []catalog.Warning `json:"warnings"`
}

func runMarketplaceInstall(ctx context.Context, opts *MarketplaceInstallOptions) error {
	f := opts.f
	c, p, err := f.marketplace(opts.mo)
	if err != nil {
		return err
	}
	ms := &marketplaceSource{f: f, c: c, host: string(p.Host), channel: opts.Channel, allowSHA1: opts.AllowSHA1, printWarnings: !f.Global.JSON,
		consent: catalog.Consent{ReviewAcknowledged: opts.ReviewAcknowledged, AllowRevoked: opts.AllowRevoked}}
	art, err := ms.resolver().ResolveMarketplace(ctx, install.MarketplaceRef{ID: opts.ID, Version: opts.Version})
	if err != nil {
		return err
	}
	defer art.Close()
	prep := ms.prepared
	in, err := f.installer(opts.LockTimeout)
	if err != nil {
		return err
	}
	req := art.Request(true, opts.Yes)
	owner := catalog.OriginOf(c.Source(), prep.Item)
	if !opts.Replace {
		req.Owner = &owner
	} else if old, err := install.Find(p, prep.Item.PackageName); err == nil && !owner.Owns(old.Entry, old.Record) {
		fmt.Fprintf(f.IO.ErrOut, "Replacing %s %s, installed from %s, with %s %s.\n",
			old.ID, old.Version(), install.DescribeOrigin(old.Entry, old.Record), owner, prep.Version.Version)
	}
	res, err := installWithConfirm(ctx, &InstallOptions{f: f, Yes: opts.Yes, AllowNameCollision: opts.AllowNameCollision, NoWarm: opts.NoWarm}, in, req)
	switch {
	case errors.Is(err, install.ErrIdentity):
		return withHint(err, "the registry's tarball is not the package its catalog names; do not install it")
	case errors.Is(err, install.ErrForeignInstall):
		return withHint(err, "pass --replace to replace it (it is kept for 'spirit extension rollback')")
	}
	if err != nil {
		return err
	}
	if f.Global.JSON {
		ws := prep.Warnings
		if ws == nil {
			ws = []catalog.Warning{}
		}
		return writeJSON(f.IO.Out, marketplaceInstalledJSON{
			installedJSON: toInstalledJSON(&res.Installed, res.Previous, ""),
			ReviewStatus:  prep.Version.ReviewStatus, Previous: res.Previous, Warnings: ws,
		})
	}
	printInstalled(f, "Installed marketplace extension", res)
	return nil
}
