package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/install"
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
	)
}

// InstallOptions are the inputs of `spirit extension install` and `import`.
type InstallOptions struct {
	f           *Factory
	Source      string
	Replace     bool
	Yes         bool
	LockTimeout time.Duration
	NPMRegistry string
	Offline     bool
	AllowSHA1   bool
	cleanup     []func() // run when the install command ends
	// ZipOnly is set by `import`, which takes only a ZIP file, as the reference.
	ZipOnly bool
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
	return cmd
}

func newCmdInstall(f *Factory, runF func(*InstallOptions) error) *cobra.Command {
	opts := &InstallOptions{f: f}
	cmd := &cobra.Command{
		Use:   "install SOURCE",
		Short: "Install an extension from a directory, archive, URL or npm",
		Long: `Install an extension. SOURCE is a directory, a .zip, a .tgz, an https URL of a
.tgz or .zip, or an npm spec (npm:NAME[@RANGE|@TAG], NAME@RANGE, @scope/name).

The package is checked (archive safety, manifest, supported hosts) before anything
is installed; a replaced version is kept for 'spirit extension rollback'.`,
		Example: `  spirit extension install ./my-ext
  spirit extension install ./my-ext-1.2.0.tgz --replace
  spirit extension install https://example.com/my-ext-1.2.0.tgz
  spirit extension install npm:@example/spirit-extension@^1.2`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Source = args[0]
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
		Progress:    &installProgress{f: f},
		Now:         f.Now,
	}, nil
}

func runInstall(ctx context.Context, opts *InstallOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	f := opts.f
	in, err := f.installer(opts.LockTimeout)
	if err != nil {
		return err
	}
	defer in.Progress.(*installProgress).finish()
	defer func() {
		for _, c := range opts.cleanup {
			c()
		}
	}()
	src := strings.TrimSpace(opts.Source)
	req := install.Request{Path: src, Replace: opts.Replace, AllowDowngrade: opts.Yes, Source: src, InstallSource: install.SourceArchive}

	switch {
	case opts.ZipOnly:
		if _, err := os.Stat(src); err != nil {
			return fmt.Errorf("Failed to read extension ZIP: %s: %w", src, err)
		}
		if format, _ := install.DetectFormat(src); format != install.FormatZip {
			return withHint(usageErrorf("%s is not a ZIP file", src), "use 'spirit extension install' for a directory, a .tgz or an npm package")
		}
		req.ArchiveFileName = filepath.Base(src)
	case strings.HasPrefix(src, "https://") || strings.HasPrefix(src, "http://"):
		tmp, err := os.MkdirTemp("", "spirit-download-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		file, name, err := install.Download(ctx, f.HTTPClient(), src, tmp)
		if err != nil {
			if errors.Is(err, install.ErrInsecureURL) {
				return usageErrorf("%v", err)
			}
			return err
		}
		req.Path, req.ArchiveFileName, req.ResolvedURL = file, name, src
	case fileExists(src):
		if fi, _ := os.Stat(src); !fi.IsDir() {
			req.ArchiveFileName = filepath.Base(src)
		}
	case npm.IsSpec(src):
		if err := resolveNPM(ctx, opts, in, src, &req); err != nil {
			return err
		}
	default:
		return withHint(fmt.Errorf("no such file, directory or package: %s", src),
			"give a directory, a .zip or .tgz file, an https URL, or an npm spec such as npm:NAME@RANGE")
	}

	res, err := installWithConfirm(ctx, opts, in, req)
	if err != nil {
		return err
	}
	if f.Global.JSON {
		return writeJSON(f.IO.Out, toInstalledJSON(&res.Installed, "", ""))
	}
	verb := "Installed extension"
	if opts.ZipOnly {
		verb = "Imported extension"
	}
	printInstalled(f, verb, res)
	return nil
}

// printInstalled says what an install did, in the reference's words
// ("Installed extension: …" with id, version, description and main).
func printInstalled(f *Factory, verb string, res *install.Result) {
	m, w := res.Manifest, f.IO.Out
	fmt.Fprintf(w, "%s: %s\nid: %s\nversion: %s\n", verb, m.Name, m.ID, m.Version)
	if m.Description != "" {
		fmt.Fprintf(w, "description: %s\n", m.Description)
	}
	if m.Main != "" {
		fmt.Fprintf(w, "main: %s\n", m.Main)
	}
	if res.Previous != "" {
		fmt.Fprintf(f.IO.ErrOut, "Replaced version %s (kept for 'spirit extension rollback %s').\n", res.Previous, m.ID)
	}
}

// installWithConfirm installs, asking before a downgrade when it can.
func installWithConfirm(ctx context.Context, opts *InstallOptions, in *install.Installer, req install.Request) (*install.Result, error) {
	f := opts.f
	res, err := in.Install(ctx, req)
	var de *install.DowngradeError
	switch {
	case errors.As(err, &de) && f.IO.CanPrompt():
		fmt.Fprintf(f.IO.ErrOut, "%s %s is installed. Replace it with the older %s? [y/N] ", de.ID, de.Installed, de.Incoming)
		line, _ := bufio.NewReader(f.IO.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			return nil, errors.New("downgrade cancelled")
		}
		req.AllowDowngrade = true
		res, err = in.Install(ctx, req)
	case errors.As(err, &de):
		return nil, withHint(err, "pass --yes to install the older version")
	case errors.Is(err, install.ErrAlreadyInstalled):
		return nil, withHint(err, "remove it first, or pass --replace")
	case errors.Is(err, install.ErrLockTimeout):
		return nil, withHint(err, "another spirit command is still changing extensions; try again, or raise --lock-timeout")
	}
	if err != nil {
		return nil, err
	}
	// Every install, from any source, ends with onExtensionInstalled for the
	// new extension; Node is started only when it listens for the event.
	if m := res.Manifest; m != nil && m.Main != "" && m.ListensTo("onExtensionInstalled") {
		notifyInstalled(f, m.ID)
	}
	return res, nil
}

// resolveNPM fetches the tarball an npm spec names and points req at it.
func resolveNPM(ctx context.Context, opts *InstallOptions, in *install.Installer, src string, req *install.Request) error {
	spec, err := npm.ParseSpec(src)
	if err != nil {
		return usageErrorf("%v", err)
	}
	wd, _ := os.Getwd()
	client, err := npm.NewClient(npm.Config{
		Registry:   opts.NPMRegistry,
		Getenv:     opts.f.Getenv,
		HomeDir:    opts.f.Getenv("HOME"),
		WorkDir:    wd,
		CacheDir:   in.Paths.CacheDir(),
		Offline:    opts.Offline,
		AllowSHA1:  opts.AllowSHA1,
		HTTPClient: opts.f.HTTPClient(),
		Progress:   &downloadProgress{f: opts.f},
	})
	if err != nil {
		return err
	}
	r, err := client.Resolve(ctx, spec)
	if err != nil {
		return err
	}
	tb, err := client.FetchTarball(ctx, r)
	if err != nil {
		return err
	}
	if tb.Temporary {
		opts.cleanup = append(opts.cleanup, func() { os.Remove(tb.Path) })
	}
	req.Path = tb.Path
	req.ExpectName, req.ExpectVersion = r.Name, r.Version
	req.ResolvedURL, req.Integrity = r.TarballURL, tb.Integrity
	req.ArchiveFileName = filepath.Base(r.TarballURL)
	return nil
}

// downloadProgress draws a download bar on a terminal; elsewhere nothing.
type downloadProgress struct {
	f           *Factory
	label       string
	done, total int64
	last        time.Time
	drawn       bool
}

// Start begins a download.
func (p *downloadProgress) Start(label string, total int64) {
	p.label, p.done, p.total = label, 0, total
}

// Add draws the bar at most ten times a second.
func (p *downloadProgress) Add(n int64) {
	p.done += n
	if !p.f.IO.IsStderrTTY() || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	if p.total > 0 {
		const width = 30
		k := min(int(p.done*width/p.total), width)
		fmt.Fprintf(p.f.IO.ErrOut, "\rDownloading %s [%s%s] %3d%% %.1f/%.1f MiB", p.label, strings.Repeat("#", k), strings.Repeat(" ", width-k),
			p.done*100/p.total, float64(p.done)/(1<<20), float64(p.total)/(1<<20))
	} else {
		fmt.Fprintf(p.f.IO.ErrOut, "\rDownloading %s %.1f MiB", p.label, float64(p.done)/(1<<20))
	}
	p.drawn = true
}

// Done ends the bar's line.
func (p *downloadProgress) Done(error) {
	if p.drawn {
		fmt.Fprintln(p.f.IO.ErrOut)
		p.drawn = false
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// installProgress draws a bar on a terminal and says when it waits.
type installProgress struct {
	f     *Factory
	drawn bool
	last  time.Time
}

// Waiting tells the user another process holds the lock.
func (p *installProgress) Waiting(lock string) {
	fmt.Fprintf(p.f.IO.ErrOut, "Waiting for another spirit command to finish (lock %s)…\n", lock)
}

// Extracting draws the bar for sources over 4 MiB, on a terminal only.
func (p *installProgress) Extracting(done, total int64) {
	if !p.f.IO.IsStderrTTY() || total < 4<<20 || total <= 0 {
		return
	}
	now := time.Now()
	if done < total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	const width = 30
	n := min(int(done*width/total), width)
	fmt.Fprintf(p.f.IO.ErrOut, "\rUnpacking [%s%s] %3d%% %.1f/%.1f MiB", strings.Repeat("#", n), strings.Repeat(" ", width-n),
		done*100/total, float64(done)/(1<<20), float64(total)/(1<<20))
	p.drawn = true
}

func (p *installProgress) finish() {
	if p.drawn {
		fmt.Fprintln(p.f.IO.ErrOut)
		p.drawn = false
	}
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
	MarketplaceID         string     `json:"marketplaceId,omitempty"`
	Channel               string     `json:"channel,omitempty"`
	ReviewStatus          string     `json:"reviewStatus,omitempty"`
	// MarketplaceFlags are "revoked" and "blocked", from the cached marketplace index (list only).
	MarketplaceFlags []string `json:"marketplaceFlags,omitempty"`
	Broken           string   `json:"broken,omitempty"`
	RollbackVersion  string   `json:"rollbackVersion,omitempty"`
	SettingsFile     string   `json:"settingsFile,omitempty"`
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
	if e := in.Entry; e != nil {
		j.ArchiveFileName, j.InstallSource = e.ArchiveFileName, e.InstallSource
	}
	if r := in.Record; r != nil {
		j.Source, j.ResolvedURL, j.Integrity = r.Source, r.ResolvedURL, r.Integrity
		j.MarketplaceID, j.Channel, j.ReviewStatus = r.MarketplaceID, r.Channel, r.ReviewStatus
	}
	return j
}

// ListOptions are the inputs of `spirit extension list`.
type ListOptions struct{ f *Factory }

func newCmdList(f *Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{f: f}
	return &cobra.Command{
		Use:     "list",
		Short:   "List installed extensions, broken ones included",
		Example: "  spirit extension list\n  spirit extension list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runList(opts)
		},
	}
}

func runList(opts *ListOptions) error {
	f := opts.f
	p, err := f.Paths()
	if err != nil {
		return err
	}
	list, err := install.List(p)
	if err != nil {
		return err
	}
	flags := marketplaceFlags(context.Background(), f, list)
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
	w := f.IO.Out
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "No extensions installed.")
		return err
	}
	fmt.Fprintln(w, "Extensions:")
	for _, in := range list {
		if in.Broken != nil {
			fmt.Fprintf(w, "  - %s (broken)\n    id: %s\n    error: %v\n", in.DisplayName(), in.ID, in.Broken)
			continue
		}
		m := in.Manifest
		fmt.Fprintf(w, "  - %s\n    id: %s\n    version: %s\n    installed_at: %d\n", m.Name, in.ID, m.Version, in.InstalledAtUnixMs)
		if m.Description != "" {
			fmt.Fprintf(w, "    description: %s\n", m.Description)
		}
		if m.Author != "" {
			fmt.Fprintf(w, "    author: %s\n", m.Author)
		}
		if m.Main != "" {
			fmt.Fprintf(w, "    main: %s\n", m.Main)
		}
		if in.Entry != nil && in.Entry.ArchiveFileName != "" {
			fmt.Fprintf(w, "    source: %s\n", in.Entry.ArchiveFileName)
		}
		if pol := perms[in.ID]; !pol.IsDefault() {
			fmt.Fprintf(w, "    permissions: %s\n", pol.Summary())
		}
		for _, flag := range flags[in.ID] {
			switch flag {
			case "revoked":
				fmt.Fprintf(w, "    warning: the marketplace has revoked version %s; see 'spirit extension outdated'\n", m.Version)
			case "blocked":
				fmt.Fprintln(w, "    warning: the marketplace has blocked this extension; consider 'spirit extension remove "+in.ID+"'")
			}
		}
	}
	return nil
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
			opts.ID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runInfo(opts)
		},
	}
}

func runInfo(opts *InfoOptions) error {
	f := opts.f
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
	w := f.IO.Out
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%s: %s\n", k, v)
		}
	}
	fmt.Fprintln(w, j.DisplayName)
	line("id", j.ID)
	line("version", j.Version)
	line("broken", j.Broken)
	line("description", j.Description)
	line("author", j.Author)
	line("homepage", j.Homepage)
	line("main", j.Main)
	line("hosts", strings.Join(j.SupportedHosts, ", "))
	line("capabilities", strings.Join(j.RequestedCapabilities, ", "))
	if len(j.Tools) > 0 {
		fmt.Fprintln(w, "tools:")
		for _, t := range j.Tools {
			fmt.Fprintf(w, "  - %s: %s\n", t.Name, t.Description)
		}
	}
	line("install_source", j.InstallSource)
	line("source", j.Source)
	line("archive", j.ArchiveFileName)
	line("resolved", j.ResolvedURL)
	line("integrity", j.Integrity)
	line("marketplace_id", j.MarketplaceID)
	line("channel", j.Channel)
	line("review", j.ReviewStatus)
	fmt.Fprintf(w, "installed_at: %d (%s)\n", j.InstalledAtUnixMs, time.UnixMilli(j.InstalledAtUnixMs).UTC().Format(time.RFC3339))
	line("directory", j.Directory)
	line("settings_file", j.SettingsFile)
	line("rollback_version", j.RollbackVersion)
	line("permissions", pol.Summary())
	return nil
}

// RemoveOptions are the inputs of `spirit extension remove`.
type RemoveOptions struct {
	f           *Factory
	ID          string
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
		Use:     "remove ID",
		Aliases: []string{"uninstall"},
		Short:   "Remove an installed extension (also a broken one)",
		Example: "  spirit extension remove my-ext\n  spirit extension remove my-ext --purge",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runRemove(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Purge, "purge", false, "also delete its settings, secrets and the version kept for rollback")
	cmd.Flags().DurationVar(&opts.LockTimeout, "lock-timeout", install.DefaultLockTimeout, "how long to wait for another spirit command")
	return cmd
}

func runRemove(ctx context.Context, opts *RemoveOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	id := strings.TrimSpace(opts.ID)
	if id == "" {
		return usageErrorf("Extension id cannot be empty")
	}
	in, err := opts.f.installer(opts.LockTimeout)
	if err != nil {
		return err
	}
	removed, err := in.Remove(ctx, id, install.RemoveOptions{Purge: opts.Purge})
	switch {
	case errors.Is(err, install.ErrNotFound):
		return withHint(err, "see 'spirit extension list' for the installed ids")
	case errors.Is(err, install.ErrLockTimeout):
		return withHint(err, "another spirit command is still changing extensions; try again, or raise --lock-timeout")
	case err != nil:
		return err
	}
	if opts.Purge && opts.PurgeSecrets != nil {
		if err := opts.PurgeSecrets(id, removed.Manifest); err != nil {
			return fmt.Errorf("removed %s, but deleting its secrets failed: %w", id, err)
		}
	}
	_, err = fmt.Fprintf(opts.f.IO.Out, "Removed extension: %s\n", id)
	return err
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

func runRollback(ctx context.Context, opts *RollbackOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	in, err := opts.f.installer(opts.LockTimeout)
	if err != nil {
		return err
	}
	res, err := in.Rollback(ctx, strings.TrimSpace(opts.ID))
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
	_, err = fmt.Fprintf(opts.f.IO.Out, "Rolled back extension: %s to %s%s\n", res.ID, res.Manifest.Version, from)
	return err
}
