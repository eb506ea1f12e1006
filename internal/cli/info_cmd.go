package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/npm"
)

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
	if j.NPMSignature != nil {
		line("registry_signature", describeNPMSignature(j.ID+"@"+j.Version, j.NPMRegistry, j.NPMSignature))
	}
	if p := j.Provenance; p != nil {
		line("provenance", describeProvenance(p))
		line("provenance_build", p.BuildURL)
	}
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

// describeProvenance is the info line of an npm install's provenance,
// which spirit does not verify (docs/npm-verification.md).
func describeProvenance(p *npm.Provenance) string {
	if p.Error != "" || p.Repository == "" {
		reason := p.Error
		if reason == "" {
			reason = "the statement names no source repository"
		}
		return fmt.Sprintf("unverified provenance (%s) listed, not read: %s", p.PredicateType, reason)
	}
	var b strings.Builder
	b.WriteString("unverified provenance: built from " + p.Repository)
	if p.Commit != "" {
		b.WriteString(" at commit " + p.Commit)
	}
	if p.Ref != "" {
		b.WriteString(" (" + p.Ref + ")")
	}
	if p.Workflow != "" {
		b.WriteString(" by workflow " + p.Workflow)
	}
	return b.String()
}
