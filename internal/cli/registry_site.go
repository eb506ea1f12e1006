package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/internal/outputs"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/registry/site"
)

// RegistrySiteOptions are the inputs of `spirit registry site`.
type RegistrySiteOptions struct {
	IO       *iostreams.IOStreams
	JSON     bool
	Root     string
	Out      string
	Registry string
	Title    string
}

func newCmdRegistrySite(f *Factory, runF func(*RegistrySiteOptions) error) *cobra.Command {
	opts := &RegistrySiteOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "site -o DIR",
		Short: "Write the marketplace web site of an index: static files for any web host",
		Long: `Write a static web site of the index in --root into DIR: index.html lists every listed
extension with search and filters (channel, host, review status, keyword) that run in the
page over index.json, and x/<extensionId>.html shows each one's README, versions,
capabilities and install commands. Hidden and blocked extensions are left out.

The site works from file:// and from any static host (GitHub Pages), needs no external
font, script or tracker, and works with JavaScript off (the full list). READMEs and every
string of the index are treated as hostile: Markdown is rendered, then sanitized.
The output is deterministic: the same index gives the same bytes.`,
		Example: `  spirit registry site --root ./registry-repo -o ./site
  spirit registry site --root ./registry-repo -o ./site --registry https://example.org/registry/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Out == "" {
				return usageErrorf("-o DIR is required")
			}
			opts.JSON = f.Global.JSON
			if runF != nil {
				return runF(opts)
			}
			return runRegistrySite(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Root, "root", ".", "registry repository (the folder that holds registry/), or the registry folder itself")
	fl.StringVarP(&opts.Out, "output", "o", "", "folder to write the site into (required)")
	fl.StringVar(&opts.Registry, "registry-url", "", "--registry value the install commands name (default: none, the official index)")
	fl.StringVar(&opts.Title, "title", "", "title of the pages (default \"Spirit Agent extensions\")")
	return cmd
}

// registryFolder returns the folder of catalog.json in a registry
// repository root: root/registry when it has one, else root itself.
func registryFolder(root string) string {
	if _, err := os.Stat(filepath.Join(root, "registry", "catalog.json")); err == nil {
		return filepath.Join(root, "registry")
	}
	return root
}

func runRegistrySite(ctx context.Context, opts *RegistrySiteOptions) error {
	res, err := buildSite(ctx, opts.Root, opts.Out, opts.Registry, opts.Title)
	if err != nil {
		return outputsError(err)
	}
	return reportSite(opts.IO, opts.JSON, opts.Out, res)
}

func buildSite(ctx context.Context, root, out, registryURL, title string) (*site.Result, error) {
	src, err := catalog.New(catalog.Options{Source: registryFolder(root)})
	if err != nil {
		return nil, err
	}
	return site.Build(ctx, site.Options{Source: src, Out: out, Registry: registryURL, Title: title})
}

func reportSite(ios *iostreams.IOStreams, asJSON bool, out string, res *site.Result) error {
	if asJSON {
		return writeJSON(ios.Out, res)
	}
	printWarnings(ios.ErrOut, res.Warnings)
	index, _ := filepath.Abs(filepath.Join(out, "index.html"))
	termtext.Fprintf(ios.ErrOut, "site of %s: %s written, %d removed, %d unchanged\n",
		plural(res.Extensions, "extension"), plural(len(res.Written), "file"), len(res.Removed), res.Unchanged)
	termtext.Fprintf(ios.Out, "%s\n", index)
	return nil
}

// outputsError adds the remedy to an error about an output folder's
// record of outputs (registry site, registry mirror); other errors pass.
func outputsError(err error) error {
	switch {
	case errors.Is(err, outputs.ErrForeign):
		return withHint(err, "write into another folder, or an empty one")
	case errors.Is(err, outputs.ErrRecord):
		return withHint(err, "the file lists what earlier runs wrote into the folder, the only files a run removes; "+
			"delete it to start over (files of earlier runs are then left in place)")
	}
	return err
}
