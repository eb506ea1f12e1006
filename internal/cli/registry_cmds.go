package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/registry"
)

// addRegistryCommands adds the registry command group to the root.
func addRegistryCommands(root *cobra.Command, f *Factory) {
	cmd := &cobra.Command{
		Use:   "registry <command>",
		Short: "Build and check a marketplace index (a SpiritAgents/registry repository)",
		Args:  cobra.NoArgs,
		RunE:  groupRunE,
	}
	cmd.AddCommand(
		newCmdRegistryBuild(f, nil),
		newCmdRegistryValidate(f, nil),
		newCmdRegistryAdd(f, nil),
		newCmdRegistrySite(f, nil),
		newCmdRegistryMirror(f, nil),
		newCmdRegistrySign(f, nil),
		newCmdRegistryKeys(f),
	)
	root.AddCommand(cmd)
}

// RegistryBuildOptions are the inputs of `spirit registry build`.
type RegistryBuildOptions struct {
	IO          *iostreams.IOStreams
	JSON        bool
	NPMClient   func(registry, root string) (*npm.Client, error)
	Root        string
	Check       bool
	Since       string
	NPMRegistry string
	Jobs        int
	Strict      bool
	Site        string
	// Sign (KEYDIR) signs the index after the build (signing_cmds.go).
	Sign            string
	TimestampExpiry time.Duration
	Now             func() time.Time
}

func newCmdRegistryBuild(f *Factory, runF func(*RegistryBuildOptions) error) *cobra.Command {
	opts := &RegistryBuildOptions{IO: f.IO, NPMClient: f.registryNPM, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Regenerate catalog.json and every detail.json from the entries and npm",
		Long: `Regenerate registry/catalog.json and registry/extensions/<extensionId>/detail.json
from every registry/extensions/**/entry.json and the npm metadata of the versions listed,
byte for byte as the official build-catalog.sh writes them.

Every problem of every entry is reported. Nothing is written unless every entry
builds; files are replaced atomically and stale detail.json files removed last.`,
		Example: `  spirit registry build --root ./registry-repo
  spirit registry build --check            # exit 3 and a diff when the index is stale
  spirit registry build --since origin/main -j 32
  spirit registry build --site ./site      # and the marketplace web site`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Jobs < 1 {
				return usageErrorf("-j must be at least 1")
			}
			if opts.Site != "" && opts.Check {
				return usageErrorf("--site writes files; it cannot go with --check")
			}
			if opts.Sign != "" && opts.Check {
				return usageErrorf("--sign writes files; it cannot go with --check")
			}
			opts.JSON = f.Global.JSON
			if runF != nil {
				return runF(opts)
			}
			return runRegistryBuild(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Root, "root", ".", "registry repository (the folder that holds registry/)")
	fl.BoolVar(&opts.Check, "check", false, "build in memory; exit 3 with a unified diff when the files on disk are stale")
	fl.StringVar(&opts.Since, "since", "", "git revision: refetch only entries changed since it")
	fl.StringVar(&opts.NPMRegistry, "npm-registry", "", "npm registry URL (default: npm config, then https://registry.npmjs.org/)")
	fl.IntVarP(&opts.Jobs, "jobs", "j", 16, "packuments fetched at once")
	fl.BoolVar(&opts.Strict, "strict", false, "treat schema warnings as errors")
	fl.StringVar(&opts.Site, "site", "", "then write the marketplace web site into this folder (as spirit registry site)")
	fl.StringVar(&opts.Sign, "sign", "", "then sign the index with the keys in this `KEYDIR` (TUF metadata in registry/tuf/, as spirit registry sign)")
	fl.DurationVar(&opts.TimestampExpiry, "timestamp-expiry", 7*24*time.Hour, "with --sign: how long the timestamp is valid")
	return cmd
}

func runRegistryBuild(ctx context.Context, opts *RegistryBuildOptions) error {
	ios := opts.IO
	schemas, err := registry.CompileSchemas()
	if err != nil {
		return err
	}
	client, err := opts.NPMClient(opts.NPMRegistry, opts.Root)
	if err != nil {
		return err
	}
	res, err := registry.Build(ctx, registry.BuildOptions{Root: opts.Root, NPM: client, Jobs: opts.Jobs, Check: opts.Check,
		Since: opts.Since, Strict: opts.Strict, Schemas: schemas, Progress: ios.Progress()})
	ios.Progress().Stop()
	if err != nil {
		return registryProblems(ios, opts.JSON, err, "registry build failed")
	}
	printProblems(ios, opts.JSON, res.Warnings, true)
	if opts.JSON {
		if err := writeJSON(ios.Out, res); err != nil {
			return err
		}
	}
	if opts.Check {
		if !res.Stale() {
			termtext.Fprintf(ios.ErrOut, "registry is up to date (%s)\n", plural(res.Entries, "extension"))
			return nil
		}
		if !opts.JSON {
			termtext.Fprintf(ios.Out, "%s", termtext.Multiline(res.Diff))
		}
		return withHint(&problemsError{fmt.Sprintf("%s out of date", plural(len(res.Written)+len(res.Deleted), "generated file"))},
			"run spirit registry build and commit the result")
	}
	termtext.Fprintf(ios.ErrOut, "built %s: %s written, %d deleted, %d unchanged (%s fetched, %s reused)\n",
		plural(res.Entries, "extension"), plural(len(res.Written), "file"), len(res.Deleted), res.Unchanged,
		plural(res.Fetched, "packument"), plural(res.Reused, "detail"))
	if opts.Sign != "" {
		if err := signAfterBuild(ctx, ios, opts.JSON, opts.Root, opts.Sign, opts.TimestampExpiry, opts.Now); err != nil {
			return err
		}
	}
	if opts.Site != "" {
		sres, err := buildSite(ctx, opts.Root, opts.Site, "", "")
		if err != nil {
			return fmt.Errorf("registry build --site: %w", err)
		}
		if !opts.JSON {
			return reportSite(ios, false, opts.Site, sres)
		}
	}
	return nil
}

// registryNPM makes the npm client of the registry commands, with the
// packument cache of the chosen host when there is a data directory.
func (f *Factory) registryNPM(reg, root string) (*npm.Client, error) {
	cache := ""
	if p, err := f.Paths(); err == nil {
		cache = p.CacheDir()
	}
	work, _ := filepath.Abs(root)
	return f.npmClient(npm.Config{Registry: reg, WorkDir: work, CacheDir: cache})
}

// registryProblems prints the problems of a *registry.ProblemsError and
// turns it into the command's error.
func registryProblems(ios *iostreams.IOStreams, asJSON bool, err error, what string) error {
	var pe *registry.ProblemsError
	if !errors.As(err, &pe) {
		if errors.Is(err, registry.ErrNoEntries) {
			return withHint(err, "entries go in registry/extensions/<extensionId>/entry.json; pass --root to point at the repository")
		}
		return err
	}
	if asJSON {
		_ = writeJSON(ios.Out, struct {
			Problems []registry.Problem `json:"problems"`
		}{pe.Problems})
	} else {
		printProblems(ios, asJSON, pe.Problems, true)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// printProblems prints ps in the official scripts' text; with named,
// each after the file it is about when the text does not name it (build's
// "Duplicate extensionId 'x' found.", its npm fetch failures). validate's
// lines stay the script's exactly: they name their files already.
func printProblems(ios *iostreams.IOStreams, asJSON bool, ps []registry.Problem, named bool) {
	if asJSON {
		return
	}
	for _, p := range ps {
		line := p.String()
		if named && p.File != "" && !strings.Contains(line, p.File) {
			line = p.File + ": " + line
		}
		termtext.Fprintln(ios.ErrOut, line)
	}
}

// RegistryValidateOptions are the inputs of `spirit registry validate`.
type RegistryValidateOptions struct {
	IO     *iostreams.IOStreams
	JSON   bool
	Root   string
	Strict bool
}

func newCmdRegistryValidate(f *Factory, runF func(*RegistryValidateOptions) error) *cobra.Command {
	opts := &RegistryValidateOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check offline that catalog.json and every detail.json agree with the entries",
		Long: `Run the official validate-registry.sh checks offline: the entries, then that catalog.json
and every detail.json agree with them. Every problem is reported; exit 3 when there is any.
The official JSON Schemas are checked too, as warnings (errors with --strict).`,
		Example: `  spirit registry validate --root ./registry-repo
  spirit registry validate --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.JSON = f.Global.JSON
			if runF != nil {
				return runF(opts)
			}
			return runRegistryValidate(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Root, "root", ".", "registry repository (the folder that holds registry/)")
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "treat schema warnings as errors")
	return cmd
}

func runRegistryValidate(opts *RegistryValidateOptions) error {
	ios := opts.IO
	schemas, err := registry.CompileSchemas()
	if err != nil {
		return err
	}
	ps, err := registry.Validate(registry.ValidateOptions{Root: opts.Root, Schemas: schemas, Strict: opts.Strict})
	if err != nil {
		return err
	}
	nerr := 0
	for _, p := range ps {
		if p.Severity == registry.SeverityError {
			nerr++
		}
	}
	if opts.JSON {
		if ps == nil {
			ps = []registry.Problem{}
		}
		if err := writeJSON(ios.Out, struct {
			Valid    bool               `json:"valid"`
			Problems []registry.Problem `json:"problems"`
		}{nerr == 0, ps}); err != nil {
			return err
		}
	} else {
		printProblems(ios, opts.JSON, ps, false)
	}
	if nerr > 0 {
		hint := "run spirit registry build to regenerate the index"
		if notBuilt(ps) {
			// The script's text says to run its build script; spirit's
			// build writes the same files.
			hint = "the index is not built yet: run spirit registry build"
			if opts.Root != "" && opts.Root != "." {
				hint += " --root " + opts.Root
			}
		}
		return withHint(&problemsError{fmt.Sprintf("registry validation found %s", plural(nerr, "problem"))}, hint)
	}
	if !opts.JSON {
		fmt.Fprintln(ios.ErrOut, "registry is consistent")
	}
	return nil
}

// notBuilt says whether ps report a registry whose catalog.json was never
// built.
func notBuilt(ps []registry.Problem) bool {
	for _, p := range ps {
		if p.Severity == registry.SeverityError && strings.HasPrefix(p.Message, "registry/catalog.json is missing.") {
			return true
		}
	}
	return false
}

// RegistryAddOptions are the inputs of `spirit registry add`.
type RegistryAddOptions struct {
	IO          *iostreams.IOStreams
	JSON        bool
	NPMClient   func(registry, root string) (*npm.Client, error)
	Root        string
	Package     string
	ID          string
	Version     string
	NPMRegistry string
}

func newCmdRegistryAdd(f *Factory, runF func(*RegistryAddOptions) error) *cobra.Command {
	opts := &RegistryAddOptions{IO: f.IO, NPMClient: f.registryNPM}
	cmd := &cobra.Command{
		Use:   "add PACKAGE --id EXTENSION_ID",
		Short: "List an npm package in the registry: write its entry.json and README.md",
		Long: `Fetch PACKAGE from npm, check its package.json and spiritExtension with the manifest rules,
and write registry/extensions/<id>/entry.json (one stable, unverified version) and a
README.md from the package. Run spirit registry build afterwards.`,
		Example: `  spirit registry add @acme/spirit-weather --id acme.weather
  spirit registry add spirit-notes --id me.notes --version 1.2.0`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Package = args[0]
			if opts.ID == "" {
				return usageErrorf("--id is required")
			}
			opts.JSON = f.Global.JSON
			if runF != nil {
				return runF(opts)
			}
			return runRegistryAdd(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Root, "root", ".", "registry repository (the folder that holds registry/)")
	fl.StringVar(&opts.ID, "id", "", "extension id to list the package as (required)")
	fl.StringVar(&opts.Version, "version", "", "version to list (default: the latest dist-tag)")
	fl.StringVar(&opts.NPMRegistry, "npm-registry", "", "npm registry URL")
	return cmd
}

func runRegistryAdd(ctx context.Context, opts *RegistryAddOptions) error {
	ios := opts.IO
	client, err := opts.NPMClient(opts.NPMRegistry, opts.Root)
	if err != nil {
		return err
	}
	res, err := registry.Add(ctx, registry.AddOptions{Root: opts.Root, Package: opts.Package, ID: opts.ID,
		Version: opts.Version, NPM: client})
	if errors.Is(err, registry.ErrEntryExists) {
		return withHint(err, "edit that entry.json to add a version")
	}
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(ios.Out, res)
	}
	for _, w := range res.Warnings {
		termtext.Fprintf(ios.ErrOut, "warning: %s\n", w.Message)
	}
	termtext.Fprintf(ios.ErrOut, "wrote %s\n", res.EntryPath)
	if res.ReadmeWritten {
		termtext.Fprintf(ios.ErrOut, "wrote %s\n", res.ReadmePath)
	}
	termtext.Fprintf(ios.ErrOut, "listed %s@%s as %s; now run spirit registry build\n", opts.Package, res.Version, opts.ID)
	return nil
}
