package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/sandbox"
)

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
	// NPMRegistry, NPMSignature and Provenance say where an npm install
	// came from, what its registry signature check found, and the
	// registry's (unverified) provenance of the version.
	NPMRegistry  string              `json:"npmRegistry,omitempty"`
	NPMSignature *npm.SignatureCheck `json:"npmSignature,omitempty"`
	Provenance   *npm.Provenance     `json:"provenance,omitempty"`
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
		j.NPMRegistry, j.NPMSignature, j.Provenance = r.NPMRegistry, r.NPMSignature, r.Provenance
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
	// Neither the table nor --long nor --json shows the tools' schemas.
	list, err := install.ListAllBrief(p)
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
	// The table goes out in one write, not one per row.
	var out bytes.Buffer
	t.w = &out
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
	if err := t.render(); err != nil {
		return err
	}
	_, err := f.IO.Out.Write(out.Bytes())
	return err
}

// InfoOptions are the inputs of `spirit extension info`.
