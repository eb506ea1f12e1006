package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/sandbox"
)

// addInstallCommands adds the install commands to the extension group.
func addInstallCommands(parent *cobra.Command, f *Factory) {
	parent.AddCommand(
		newCmdImport(f, nil),
		newCmdInstall(f, nil),
		newCmdList(f, nil),
		newCmdInfo(f, nil),
		newCmdRemove(f, nil),
		newCmdRollback(f, nil),
		newCmdEnable(f, nil),
		newCmdDisable(f, nil),
		newCmdLock(f, nil),
		newCmdSync(f, nil),
	)
}

// InstallOptions are the inputs of `spirit extension install` and `import`.
type InstallOptions struct {
	f *Factory
	// Source is the one source to install; Sources, when set, are several,
	// each installed on its own.
	Source      string
	Sources     []string
	Replace     bool
	Yes         bool
	LockTimeout time.Duration
	NPMRegistry string
	Offline     bool
	AllowSHA1   bool
	// AllowNameCollision installs even when the extension's tools would
	// share invocation names with an installed extension's.
	AllowNameCollision bool
	// ZipOnly is set by `import`, which takes only a ZIP file, as the reference.
	ZipOnly bool
	// ReviewAcknowledged and AllowRevoked are the marketplace install
	// policy's consents, for marketplace sources.
	ReviewAcknowledged bool
	AllowRevoked       bool
}

func newCmdImport(f *Factory, runF func(*InstallOptions) error) *cobra.Command {
	opts := &InstallOptions{f: f, ZipOnly: true}
	cmd := &cobra.Command{
		Use:   "import FILE.zip",
		Short: "Install an extension from a ZIP file",
		Long: `Install an extension from a ZIP file, as the Spirit Agent apps import one: the
archive must hold exactly one package.json, whose folder is the package root.`,
		Example: "  spirit extension import ./my-ext.zip\n  spirit extension import ./my-ext-2.0.0.zip --replace",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Source = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runInstall(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Replace, "replace", false, "replace an installed extension with the same id")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask before a downgrade")
	cmd.Flags().DurationVar(&opts.LockTimeout, "lock-timeout", install.DefaultLockTimeout, "how long to wait for another spirit command")
	cmd.Flags().BoolVar(&opts.AllowNameCollision, "allow-name-collision", false, "install even if its tool names collide with an installed extension's")
	return cmd
}

func newCmdInstall(f *Factory, runF func(*InstallOptions) error) *cobra.Command {
	opts := &InstallOptions{f: f}
	cmd := &cobra.Command{
		Use:   "install SOURCE…",
		Short: "Install extensions from a directory, archive, URL, npm or the marketplace",
		Long: `Install extensions. Each SOURCE is taken, in this order, as:

  1. an existing directory, .zip or .tgz
  2. an https URL of a .tgz or .zip
  3. npm:SPEC            an npm package (npm:NAME[@RANGE|@TAG])
  4. marketplace:ID[@V]  a marketplace extension, with the policy of
                         'spirit extension marketplace install'
  5. a bare ID that is an extension id of the configured marketplace index
  6. otherwise an npm spec (NAME, NAME@RANGE, @scope/name)

A bare argument's way is said on stderr. The package is checked (archive safety,
manifest, supported hosts) before anything is installed; a replaced version is
kept for 'spirit extension rollback'. Several sources are installed one by one,
each on its own; the command fails when any failed.`,
		Example: `  spirit extension install ./my-ext
  spirit extension install ./my-ext-1.2.0.tgz --replace
  spirit extension install https://example.com/my-ext-1.2.0.tgz
  spirit extension install npm:@example/spirit-extension@^1.2
  spirit extension install acme.weather ./other-ext`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Source, opts.Sources = args[0], args
			if runF != nil {
				return runF(opts)
			}
			return runInstall(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.Replace, "replace", false, "replace an installed extension with the same id")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask before a downgrade")
	fl.DurationVar(&opts.LockTimeout, "lock-timeout", install.DefaultLockTimeout, "how long to wait for another spirit command")
	fl.StringVar(&opts.NPMRegistry, "npm-registry", "", "npm registry URL for npm sources")
	fl.BoolVar(&opts.Offline, "offline", false, "use only the npm cache")
	fl.BoolVar(&opts.AllowSHA1, "allow-sha1", false, "accept an npm package whose only integrity is a SHA-1 shasum")
	fl.BoolVar(&opts.AllowNameCollision, "allow-name-collision", false, "install even if its tool names collide with an installed extension's")
	fl.BoolVar(&opts.ReviewAcknowledged, "review-acknowledged", false, "install a marketplace version that is not verified")
	fl.BoolVar(&opts.AllowRevoked, "allow-revoked", false, "install a marketplace version whose review was revoked")
	return cmd
}

func (f *Factory) installer(timeout time.Duration) (*install.Installer, error) {
	p, err := f.Paths()
	if err != nil {
		return nil, err
	}
	return &install.Installer{
		Paths:       p,
		LockTimeout: timeout,
		Progress:    f.IO.Progress(),
		Now:         f.Now,
		Warn: func(msg string) {
			termtext.Fprintf(f.IO.ErrOut, "Warning: %s\n", msg)
		},
	}, nil
}

func runInstall(ctx context.Context, opts *InstallOptions) error {
	f := opts.f
	in, err := f.installer(opts.LockTimeout)
	if err != nil {
		return err
	}
	defer f.IO.Progress().Stop()
	sources := opts.Sources
	if len(sources) == 0 {
		sources = []string{opts.Source}
	}
	return forEachArg(f, sources, func(source string) (any, error) {
		return installOne(ctx, opts, in, source)
	})
}

// installOne installs one source and prints what it did; its value is
// the --json output.
func installOne(ctx context.Context, opts *InstallOptions, in *install.Installer, source string) (any, error) {
	f := opts.f
	r := f.resolver(opts, in)
	im := &installMarketplace{f: f, opts: opts}
	if !opts.ZipOnly {
		im.wire(r)
	}
	art, err := r.Resolve(ctx, source)
	if !f.Global.JSON && !opts.ZipOnly && install.IsBare(strings.TrimSpace(source)) {
		kind := r.Classify(ctx, source)
		if art != nil {
			kind = art.Kind
		}
		termtext.Fprintf(f.IO.ErrOut, "Taking %s as %s.\n", strings.TrimSpace(source), im.describeKind(strings.TrimSpace(source), kind))
	}
	switch {
	case errors.Is(err, install.ErrNotZip):
		return nil, withHint(usageErrorf("%v", err), "use 'spirit extension install' for a directory, a .tgz or an npm package")
	case errors.Is(err, install.ErrInvalidSource), errors.Is(err, install.ErrInsecureURL):
		return nil, usageErrorf("%v", err)
	case errors.Is(err, install.ErrNoSource):
		return nil, withHint(err, "give a directory, a .zip or .tgz file, an https URL, an npm spec such as npm:NAME@RANGE, or marketplace:ID")
	case err != nil:
		return nil, err
	}
	defer art.Close()
	req := art.Request(opts.Replace, opts.Yes)

	res, err := installWithConfirm(ctx, opts, in, req)
	if err != nil {
		return nil, err
	}
	if f.Global.JSON {
		return toInstalledJSON(&res.Installed, "", ""), nil
	}
	verb := "Installed extension"
	switch {
	case opts.ZipOnly:
		verb = "Imported extension"
	case art.Kind == install.KindMarketplace:
		verb = "Installed marketplace extension"
	}
	printInstalled(f, verb, res)
	return nil, nil
}

// printInstalled says what an install did, in the reference's words
// ("Installed extension: …" with id, version, description and main).
func printInstalled(f *Factory, verb string, res *install.Result) {
	m, w := res.Manifest, f.IO.Out
	termtext.Fprintf(w, "%s: %s\nid: %s\nversion: %s\n", verb, m.Name, m.ID, m.Version)
	if m.Description != "" {
		termtext.Fprintf(w, "description: %s\n", m.Description)
	}
	if m.Main != "" {
		termtext.Fprintf(w, "main: %s\n", m.Main)
	}
	if res.Previous != "" {
		termtext.Fprintf(f.IO.ErrOut, "Replaced version %s (kept for 'spirit extension rollback %s').\n", res.Previous, m.ID)
	}
}

// installWithConfirm installs, asking before a downgrade when it can.
func installWithConfirm(ctx context.Context, opts *InstallOptions, in *install.Installer, req install.Request) (*install.Result, error) {
	f := opts.f
	var allowed *exthost.NameCollisionError
	check := req.Check
	req.Check = func(m *manifest.Manifest) error {
		if check != nil {
			if err := check(m); err != nil {
				return err
			}
		}
		list, err := install.List(in.Paths)
		if err != nil {
			return err
		}
		ne := exthost.CheckNames(list, m)
		if ne != nil && !opts.AllowNameCollision {
			return ne
		}
		allowed = ne
		return nil
	}
	res, err := in.Install(ctx, req)
	var de *install.DowngradeError
	var ne *exthost.NameCollisionError
	switch {
	case errors.As(err, &de) && f.IO.CanPrompt():
		if ok, _ := f.IO.Prompter().Confirm("%s %s is installed. Replace it with the older %s?", de.ID, de.Installed, de.Incoming); !ok {
			return nil, errors.New("downgrade cancelled")
		}
		req.AllowDowngrade = true
		res, err = in.Install(ctx, req)
	case errors.As(err, &de):
		return nil, withHint(err, "pass --yes to install the older version")
	case errors.Is(err, install.ErrAlreadyInstalled):
		return nil, withHint(err, "remove it first, or pass --replace")
	case errors.As(err, &ne):
		return nil, withHint(err, fmt.Sprintf("in the apps' order %s; pass --allow-name-collision to install it anyway",
			strings.Join(ne.Assignments(), "; ")))
	case errors.Is(err, install.ErrLockTimeout):
		return nil, withHint(err, "another spirit command is still changing extensions; try again, or raise --lock-timeout")
	}
	if err != nil {
		return nil, err
	}
	if allowed != nil {
		for _, line := range allowed.Assignments() {
			termtext.Fprintf(f.IO.ErrOut, "note: %s\n", line)
		}
	}
	// Every install, from any source, ends with onExtensionInstalled for the
	// new extension; Node is started only when it listens for the event.
	if m := res.Manifest; m != nil && m.Main != "" && m.ListensTo("onExtensionInstalled") {
		notifyInstalled(ctx, f, m.ID)
	}
	return res, nil
}

// resolver is the install.Resolver of the install and import commands:
// URLs through the factory's HTTP client, npm specs through an npm client
// configured from the flags, .npmrc and the environment.
func (f *Factory) resolver(opts *InstallOptions, in *install.Installer) *install.Resolver {
	return &install.Resolver{
		ZipOnly: opts.ZipOnly,
		Download: func(ctx context.Context, rawURL, dir string) (string, string, error) {
			lim, err := f.FetchLimits()
			if err != nil {
				return "", "", err
			}
			return install.DownloadWithProgress(ctx, fetch.New(fetch.Options{HTTP: f.HTTPClient(), Limits: lim}), rawURL, dir, f.IO.Progress())
		},
		NPM: func() (install.NPMClient, error) {
			return f.npmClient(npm.Config{
				Registry:  opts.NPMRegistry,
				CacheDir:  in.Paths.CacheDir(),
				Offline:   opts.Offline,
				AllowSHA1: opts.AllowSHA1,
				Progress:  f.IO.Progress(),
			})
		},
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// installedJSON is one install in `list --json` and `info --json`. Its
// field names are a public contract.
type installedJSON struct {
	ID                    string     `json:"id"`
	DisplayName           string     `json:"displayName"`
	Version               string     `json:"version"`
	Description           string     `json:"description,omitempty"`
	Author                string     `json:"author,omitempty"`
	Homepage              string     `json:"homepage,omitempty"`
	Main                  string     `json:"main,omitempty"`
	SupportedHosts        []string   `json:"supportedHosts,omitempty"`
	RequestedCapabilities []string   `json:"requestedCapabilities,omitempty"`
	Tools                 []toolJSON `json:"tools,omitempty"`
	Directory             string     `json:"directory"`
	InstalledAtUnixMs     int64      `json:"installedAtUnixMs"`
	ArchiveFileName       string     `json:"archiveFileName,omitempty"`
	InstallSource         string     `json:"installSource,omitempty"`
	Source                string     `json:"source,omitempty"`
	ResolvedURL           string     `json:"resolvedUrl,omitempty"`
	Integrity             string     `json:"integrity,omitempty"`
	MarketplaceIndex      string     `json:"marketplaceIndex,omitempty"`
	MarketplaceID         string     `json:"marketplaceId,omitempty"`
	Channel               string     `json:"channel,omitempty"`
	ReviewStatus          string     `json:"reviewStatus,omitempty"`
	// MarketplaceFlags are "revoked" and "blocked", from the cached marketplace index (list only).
	MarketplaceFlags []string `json:"marketplaceFlags,omitempty"`
	Broken           string   `json:"broken,omitempty"`
	Disabled         bool     `json:"disabled,omitempty"`
	// Warnings are what spirit's install would refuse and the apps accept.
	Warnings []string `json:"warnings,omitempty"`
	// InstalledByAnotherApp says that spirit's record no longer describes
	// the installed package: the apps replaced it since.
	InstalledByAnotherApp bool   `json:"installedByAnotherApp,omitempty"`
	RollbackVersion       string `json:"rollbackVersion,omitempty"`
	SettingsFile          string `json:"settingsFile,omitempty"`
	// Permissions is the extension's sandbox grants (list and info only).
	Permissions *sandbox.Policy `json:"permissions,omitempty"`
}

type toolJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

func toInstalledJSON(in *install.Installed, rollback, settings string) installedJSON {
	j := installedJSON{
		ID: in.ID, DisplayName: in.DisplayName(), Version: in.Version(), Directory: in.Dir,
		InstalledAtUnixMs: in.InstalledAtUnixMs, RollbackVersion: rollback, SettingsFile: settings,
	}
	if m := in.Manifest; m != nil {
		j.Description, j.Author, j.Homepage, j.Main = m.Description, m.Author, m.Homepage, m.Main
		j.SupportedHosts, j.RequestedCapabilities = m.SupportedHosts, m.RequestedCapabilities
		for _, t := range m.Tools() {
			j.Tools = append(j.Tools, toolJSON{Name: t.Name, Description: t.Description})
		}
	}
	if in.Broken != nil {
		j.Broken = in.Broken.Error()
	}
	j.Disabled, j.Warnings, j.InstalledByAnotherApp = in.Disabled, in.Warnings, in.StaleRecord != nil
	if e := in.Entry; e != nil {
		j.ArchiveFileName, j.InstallSource = e.ArchiveFileName, e.InstallSource
	}
	if r := in.Record; r != nil {
		j.Source, j.ResolvedURL, j.Integrity = r.Source, r.ResolvedURL, r.Integrity
		j.MarketplaceIndex, j.MarketplaceID, j.Channel, j.ReviewStatus = r.MarketplaceIndex, r.MarketplaceID, r.Channel, r.ReviewStatus
	}
	return j
}

// ListOptions are the inputs of `spirit extension list`.
type ListOptions struct {
	f *Factory
	// Long prints every field as key/value blocks instead of a table.
	Long bool
}

func newCmdList(f *Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{f: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List installed extensions, broken ones included",
		Long: `List the installed extensions as a table: id, version, how it was installed,
when, and its status (ok, disabled, broken, warnings, revoked or blocked in the
marketplace). On a terminal the table has a header and the installed time is
relative ("3 days ago"); through a pipe each extension is one line of
tab-separated fields with the time in RFC 3339, for scripts. --long prints every
field as key/value blocks; --json prints everything as JSON.`,
		Example: "  spirit extension list\n  spirit extension list --long\n  spirit extension list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runList(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Long, "long", "l", false, "print every field as key/value blocks")
	return cmd
}

func runList(ctx context.Context, opts *ListOptions) error {
	f := opts.f
	readCommandGC(f.Getenv)
	p, err := f.Paths()
	if err != nil {
		return err
	}
	list, err := install.ListAll(p)
	if err != nil {
		return err
	}
	flags := marketplaceFlags(ctx, f, list)
	perms := policies(f, p)
	if f.Global.JSON {
		out := struct {
			Extensions []installedJSON `json:"extensions"`
		}{Extensions: []installedJSON{}}
		for i := range list {
			j := toInstalledJSON(&list[i], "", "")
			j.MarketplaceFlags = flags[list[i].ID]
			pol := perms[list[i].ID]
			j.Permissions = &pol
			out.Extensions = append(out.Extensions, j)
		}
		return writeJSON(f.IO.Out, out)
	}
	if len(list) == 0 {
		_, err := fmt.Fprintln(f.IO.Out, "No extensions installed.")
		return err
	}
	defer f.startPager()()
	if !opts.Long {
		return printListTable(f, list, flags)
	}
	w := f.IO.Out
	fmt.Fprintln(w, "Extensions:")
	for _, in := range list {
		disabled := ""
		if in.Disabled {
			disabled = " (disabled)"
		}
		if in.Broken != nil {
			termtext.Fprintf(w, "  - %s (broken)%s\n    id: %s\n    error: %v\n", in.DisplayName(), disabled, in.ID, in.Broken)
			continue
		}
		m := in.Manifest
		termtext.Fprintf(w, "  - %s%s\n    id: %s\n    version: %s\n    installed_at: %s\n", m.Name, disabled, in.ID, m.Version, installedAt(in.InstalledAtUnixMs))
		if m.Description != "" {
			termtext.Fprintf(w, "    description: %s\n", m.Description)
		}
		if m.Author != "" {
			termtext.Fprintf(w, "    author: %s\n", m.Author)
		}
		if m.Main != "" {
			termtext.Fprintf(w, "    main: %s\n", m.Main)
		}
		if in.Entry != nil && in.Entry.ArchiveFileName != "" {
			termtext.Fprintf(w, "    source: %s\n", in.Entry.ArchiveFileName)
		}
		if in.StaleRecord != nil {
			termtext.Fprintf(w, "    installed_by: another app (spirit's record of %s %s no longer applies)\n", in.ID, in.StaleRecord.Version)
		}
		for _, warning := range in.Warnings {
			termtext.Fprintf(w, "    warning: %s\n", warning)
		}
		if pol := perms[in.ID]; !pol.IsDefault() {
			fmt.Fprintf(w, "    permissions: %s\n", pol.Summary())
		}
		for _, flag := range flags[in.ID] {
			switch flag {
			case "revoked":
				termtext.Fprintf(w, "    warning: the marketplace has revoked version %s; see 'spirit extension outdated'\n", m.Version)
			case "blocked":
				termtext.Fprintf(w, "    warning: the marketplace has blocked this extension; consider 'spirit extension remove %s'\n", in.ID)
			}
		}
	}
	return nil
}

// installedAt is an install time in RFC 3339 (UTC), or "unknown" for none.
func installedAt(ms int64) string {
	if ms <= 0 {
		return "unknown"
	}
	return time.UnixMilli(ms).UTC().Format(time.RFC3339)
}

// printListTable prints the table of `extension list`.
func printListTable(f *Factory, list []install.Installed, flags map[string][]string) error {
	tty := f.IO.IsStdoutTTY()
	cs := f.IO.ColorScheme()
	t := newTablePrinter(f.IO, -1, "ID", "VERSION", "SOURCE", "INSTALLED", "STATUS")
	for i := range list {
		in := &list[i]
		source := install.KindOf(in.Record)
		switch {
		case in.Broken != nil && source == "":
			source = "-"
		case in.StaleRecord != nil:
			source = "other app"
		case source == "":
			source = "app"
		}
		when := installedAt(in.InstalledAtUnixMs)
		if tty && in.InstalledAtUnixMs > 0 {
			when = fuzzyAgo(f.clock(), time.UnixMilli(in.InstalledAtUnixMs))
		}
		var status []string
		color := cs.Green
		if in.Broken != nil {
			status, color = append(status, "broken"), cs.Red
		}
		for _, flag := range flags[in.ID] {
			status = append(status, flag)
			if flag == "blocked" {
				color = cs.Red
			} else if in.Broken == nil {
				color = cs.Yellow
			}
		}
		if n := len(in.Warnings); n > 0 {
			status = append(status, plural(n, "warning"))
			if in.Broken == nil && len(flags[in.ID]) == 0 {
				color = cs.Yellow
			}
		}
		if in.Disabled {
			status = append(status, "disabled")
			if len(status) == 1 {
				color = cs.Gray
			}
		}
		if len(status) == 0 {
			status = []string{"ok"}
		}
		version := in.Version()
		if version == "" {
			version = "-"
		}
		t.addRow(in.ID, version, source, when, strings.Join(status, ", "))
		t.colorCell(0, cs.Bold)
		t.colorCell(4, color)
	}
	return t.render()
}

// InfoOptions are the inputs of `spirit extension info`.
type InfoOptions struct {
	f  *Factory
	ID string
}

func newCmdInfo(f *Factory, runF func(*InfoOptions) error) *cobra.Command {
	opts := &InfoOptions{f: f}
	return &cobra.Command{
		Use:     "info ID",
		Short:   "Show an installed extension: manifest, capabilities, tools, source, integrity",
		Example: "  spirit extension info @example/spirit-extension --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := installedID(cmd.Context(), f, args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			if runF != nil {
				return runF(opts)
			}
			return runInfo(opts)
		},
	}
}

func runInfo(opts *InfoOptions) error {
	f := opts.f
	readCommandGC(f.Getenv)
	p, err := f.Paths()
	if err != nil {
		return err
	}
	in, err := install.Find(p, strings.TrimSpace(opts.ID))
	if err != nil {
		return withHint(err, "see 'spirit extension list' for the installed ids")
	}
	rollback, _, _ := install.Generation(p, in.ID)
	settings := ""
	if fileExists(p.SettingsFile(in.ID)) {
		settings = p.SettingsFile(in.ID)
	}
	j := toInstalledJSON(in, rollback, settings)
	pol := policies(f, p)[in.ID]
	j.Permissions = &pol
	if f.Global.JSON {
		return writeJSON(f.IO.Out, j)
	}
	defer f.startPager()()
	w := f.IO.Out
	line := func(k, v string) {
		if v != "" {
			termtext.Fprintf(w, "%s: %s\n", k, v)
		}
	}
	termtext.Fprintln(w, j.DisplayName)
	line("id", j.ID)
	line("version", j.Version)
	line("broken", j.Broken)
	if j.Disabled {
		line("disabled", "yes (invisible to the apps and the runtime; 'spirit extension enable "+j.ID+"' turns it back on)")
	}
	line("description", j.Description)
	line("author", j.Author)
	line("homepage", j.Homepage)
	line("main", j.Main)
	line("hosts", strings.Join(j.SupportedHosts, ", "))
	line("capabilities", strings.Join(j.RequestedCapabilities, ", "))
	if len(j.Tools) > 0 {
		fmt.Fprintln(w, "tools:")
		for _, t := range j.Tools {
			termtext.Fprintf(w, "  - %s: %s\n", t.Name, t.Description)
		}
	}
	for _, warning := range j.Warnings {
		line("warning", warning)
	}
	if in.StaleRecord != nil {
		line("installed_by", fmt.Sprintf("another app (spirit installed %s from %s; that record no longer applies, so no source or integrity is claimed)",
			in.StaleRecord.Version, install.DescribeOrigin(nil, in.StaleRecord)))
	}
	line("install_source", j.InstallSource)
	line("source", j.Source)
	line("archive", j.ArchiveFileName)
	line("resolved", j.ResolvedURL)
	line("integrity", j.Integrity)
	line("marketplace_index", j.MarketplaceIndex)
	line("marketplace_id", j.MarketplaceID)
	line("channel", j.Channel)
	line("review", j.ReviewStatus)
	if j.InstalledAtUnixMs > 0 {
		termtext.Fprintf(w, "installed_at: %s (%s)\n", installedAt(j.InstalledAtUnixMs), fuzzyAgo(f.clock(), time.UnixMilli(j.InstalledAtUnixMs)))
	}
	line("directory", j.Directory)
	line("settings_file", j.SettingsFile)
	line("rollback_version", j.RollbackVersion)
	line("permissions", pol.Summary())
	return nil
}

// RemoveOptions are the inputs of `spirit extension remove`.
type RemoveOptions struct {
	f *Factory
	// IDs are the extensions to remove (package names or marketplace ids).
	IDs         []string
	Purge       bool
	LockTimeout time.Duration
	// PurgeSecrets, when set, deletes the extension's secrets on --purge
	// (the runtime package owns the keyring; the lead wires it). m is nil
	// when the install was broken.
	PurgeSecrets func(id string, m *manifest.Manifest) error
}

func newCmdRemove(f *Factory, runF func(*RemoveOptions) error) *cobra.Command {
	opts := &RemoveOptions{f: f, PurgeSecrets: func(id string, m *manifest.Manifest) error {
		if m == nil || len(m.SecretSlots) == 0 {
			return nil // nothing declared (or unknown for a broken install): no keyring to open
		}
		p, err := f.Paths()
		if err != nil {
			return err
		}
		return newSecrets(f, p.DataDir).DeleteAll(id, m.SecretSlots)
	}}
	cmd := &cobra.Command{
		Use:     "remove ID…",
		Aliases: []string{"uninstall"},
		Short:   "Remove installed extensions (also broken ones)",
		Example: "  spirit extension remove my-ext\n  spirit extension remove my-ext other-ext --purge",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.IDs = args
			if runF != nil {
				return runF(opts)
			}
			return runRemove(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Purge, "purge", false, "also delete its settings, secrets, sandbox grants and the version kept for rollback")
	cmd.Flags().DurationVar(&opts.LockTimeout, "lock-timeout", install.DefaultLockTimeout, "how long to wait for another spirit command")
	return cmd
}

func runRemove(ctx context.Context, opts *RemoveOptions) error {
	for _, id := range opts.IDs {
		if strings.TrimSpace(id) == "" {
			return usageErrorf("Extension id cannot be empty")
		}
	}
	in, err := opts.f.installer(opts.LockTimeout)
	if err != nil {
		return err
	}
	return forEachArg(opts.f, opts.IDs, func(arg string) (any, error) {
		return removeOne(ctx, opts, in, arg)
	})
}

// removedJSON is what `remove --json` prints for one extension.
type removedJSON struct {
	ID      string `json:"id"`
	Version string `json:"version,omitempty"`
	Purged  bool   `json:"purged"`
}

func removeOne(ctx context.Context, opts *RemoveOptions, in *install.Installer, arg string) (*removedJSON, error) {
	id, err := installedID(ctx, opts.f, strings.TrimSpace(arg))
	if err != nil {
		return nil, err
	}
	removed, err := in.Remove(ctx, id, install.RemoveOptions{Purge: opts.Purge})
	switch {
	case errors.Is(err, install.ErrNotFound):
		return nil, withHint(err, "see 'spirit extension list' for the installed ids")
	case errors.Is(err, install.ErrLockTimeout):
		return nil, withHint(err, "another spirit command is still changing extensions; try again, or raise --lock-timeout")
	case err != nil:
		return nil, err
	}
	if opts.Purge && opts.PurgeSecrets != nil {
		if err := opts.PurgeSecrets(id, removed.Manifest); err != nil {
			return nil, fmt.Errorf("removed %s, but deleting its secrets failed: %w", id, err)
		}
	}
	res := &removedJSON{ID: id, Version: removed.Version(), Purged: opts.Purge}
	if opts.f.Global.JSON {
		return res, nil
	}
	_, err = termtext.Fprintf(opts.f.IO.Out, "Removed extension: %s\n", id)
	return res, err
}

// RollbackOptions are the inputs of `spirit extension rollback`.
type RollbackOptions struct {
	f           *Factory
	ID          string
	LockTimeout time.Duration
}

func newCmdRollback(f *Factory, runF func(*RollbackOptions) error) *cobra.Command {
	opts := &RollbackOptions{f: f}
	cmd := &cobra.Command{
		Use:     "rollback ID",
		Short:   "Put back the version that the last replace of an extension replaced",
		Example: "  spirit extension rollback my-ext",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runRollback(cmd.Context(), opts)
		},
	}
	cmd.Flags().DurationVar(&opts.LockTimeout, "lock-timeout", install.DefaultLockTimeout, "how long to wait for another spirit command")
	return cmd
}

func runRollback(ctx context.Context, opts *RollbackOptions) (err error) {
	in, err := opts.f.installer(opts.LockTimeout)
	if err != nil {
		return err
	}
	id, err := installedID(ctx, opts.f, strings.TrimSpace(opts.ID))
	if err != nil {
		return err
	}
	if _, _, gerr := install.Generation(in.Paths, id); errors.Is(gerr, install.ErrNoGeneration) {
		// After a remove the id names no install; a marketplace id still
		// names its package through the cached catalog.
		if o := catalogOrigins(ctx, opts.f)(id); o != nil {
			id = o.PackageName
		}
	}
	if found, ferr := install.Find(in.Paths, id); ferr == nil && found.Disabled {
		// A disabled extension rolls back and stays disabled.
		if _, err := in.Enable(ctx, id); err != nil {
			return err
		}
		defer func() {
			if _, derr := in.Disable(ctx, id); derr != nil && err == nil {
				err = derr
			}
		}()
	}
	res, err := in.Rollback(ctx, id)
	if errors.Is(err, install.ErrNoGeneration) {
		return withHint(err, "a version is kept only when an install replaces another")
	}
	if err != nil {
		return err
	}
	if opts.f.Global.JSON {
		return writeJSON(opts.f.IO.Out, toInstalledJSON(&res.Installed, res.Previous, ""))
	}
	from := ""
	if res.Previous != "" {
		from = " (was " + res.Previous + ")"
	}
	_, err = termtext.Fprintf(opts.f.IO.Out, "Rolled back extension: %s to %s%s\n", res.ID, res.Manifest.Version, from)
	return err
}
