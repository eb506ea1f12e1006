package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/internal/outputs"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/registry/mirror"
)

// RegistryMirrorOptions are the inputs of `spirit registry mirror`.
type RegistryMirrorOptions struct {
	IO          *iostreams.IOStreams
	JSON        bool
	Client      func() (*catalog.Client, error)
	Out         string
	Channels    []string
	Hosts       []string
	IDs         []string
	KeepRemoved bool
	AllowSHA1   bool
	BaseURL     string
}

func newCmdRegistryMirror(f *Factory, runF func(*RegistryMirrorOptions) error) *cobra.Command {
	opts := &RegistryMirrorOptions{IO: f.IO}
	opts.Client = func() (*catalog.Client, error) {
		c, _, err := f.marketplace(&marketplaceOptions{MaxAge: 0})
		return c, err
	}
	cmd := &cobra.Command{
		Use:   "mirror -o DIR",
		Short: "Copy a marketplace index and its tarballs into a folder that serves installs offline",
		Long: `Copy the index of --registry (an https URL, a folder or a git repository) into DIR:
catalog.json, every detail.json, the READMEs and the npm tarball of every selected version,
each verified against its integrity before it is kept. Tarball URLs in the mirror are
relative, so --registry DIR, or any static web server over DIR, serves installs with no
other network; installs from the mirror check the same integrity as from the source.

A second run downloads only what is new and removes what the source no longer lists
(--keep-removed keeps it). New files are written first and catalog.json last, so an
interrupted run leaves the previous mirror usable. Exit 1 when a version was refused
(a tarball that fails its integrity is never written); the rest is mirrored.`,
		Example: `  spirit registry mirror -o /srv/spirit-mirror
  spirit --registry https://example.org/registry/ registry mirror -o ./mirror --channel stable --host cli
  spirit --registry ./mirror extension marketplace install acme.weather
  spirit registry mirror -o /srv/www/spirit --base-url https://mirror.intranet.example/spirit/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Out == "" {
				return usageErrorf("-o DIR is required")
			}
			for _, c := range opts.Channels {
				if c != catalog.ChannelStable && c != catalog.ChannelPreview && c != catalog.ChannelExperimental {
					return usageErrorf("--channel must be stable, preview or experimental, not %q", c)
				}
			}
			for _, h := range opts.Hosts {
				if h != "cli" && h != "desktop" {
					return usageErrorf("--host must be cli or desktop, not %q", h)
				}
			}
			opts.JSON = f.Global.JSON
			if runF != nil {
				return runF(opts)
			}
			return runRegistryMirror(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Out, "output", "o", "", "mirror folder (required)")
	fl.StringSliceVar(&opts.Channels, "channel", nil, "mirror only versions of these channels (repeatable)")
	fl.StringSliceVar(&opts.Hosts, "host", nil, "mirror only versions supporting one of these hosts: cli, desktop (repeatable)")
	fl.StringSliceVar(&opts.IDs, "ids", nil, "mirror only these extensions (repeatable, comma-separated)")
	fl.BoolVar(&opts.KeepRemoved, "keep-removed", false, "keep extensions and versions the source no longer lists")
	fl.BoolVar(&opts.AllowSHA1, "allow-sha1", false, "accept tarballs verified only by sha1")
	fl.StringVar(&opts.BaseURL, "base-url", "", "URL the mirror will be served from: write absolute tarball URLs (for the Spirit Agent apps)")
	return cmd
}

func runRegistryMirror(ctx context.Context, opts *RegistryMirrorOptions) error {
	ios := opts.IO
	src, err := opts.Client()
	if err != nil {
		return err
	}
	res, err := mirror.Mirror(ctx, mirror.Options{Source: src, Out: opts.Out, Channels: opts.Channels, Hosts: opts.Hosts,
		IDs: opts.IDs, KeepRemoved: opts.KeepRemoved, AllowSHA1: opts.AllowSHA1, BaseURL: opts.BaseURL,
		Log: func(msg string) { termtext.Fprintln(ios.ErrOut, msg) }})
	if res == nil {
		if errors.Is(err, outputs.ErrRecord) || errors.Is(err, outputs.ErrForeign) {
			return outputsError(err)
		}
		if errors.Is(err, mirror.ErrUnknownID) {
			return withHint(err, "see spirit extension marketplace list --all")
		}
		if errors.Is(err, mirror.ErrBaseURL) {
			return usageErrorf("--base-url: %v", err)
		}
		return marketplaceError(err)
	}
	printWarnings(ios.ErrOut, res.Warnings)
	if opts.JSON {
		if jerr := writeJSON(ios.Out, res); jerr != nil {
			return jerr
		}
	} else {
		abs, _ := filepath.Abs(opts.Out)
		termtext.Fprintf(ios.ErrOut, "mirrored %d extensions, %d versions: %d tarballs downloaded, %d files written, %d removed\n",
			res.Extensions, res.Versions, len(res.Downloaded), len(res.Written), len(res.Removed))
		termtext.Fprintf(ios.Out, "%s\n", abs)
	}
	if err != nil {
		return withHint(fmt.Errorf("registry mirror: %w", err), "the mirror holds everything else; a refused tarball is never written")
	}
	return nil
}
