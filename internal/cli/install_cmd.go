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
	"github.com/spiritagents/spirit/paths"
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
	// NoWarm skips reading the new extension's static system prompt into
	// the prompt cache after the install.
	NoWarm bool
}

// noWarmUsage is the help of --no-warm on the commands that install.
const noWarmUsage = "do not start the extension after the install to cache its static system prompt (the first prompt or mcp serve then does)"

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
	cmd.Flags().BoolVar(&opts.NoWarm, "no-warm", false, noWarmUsage)
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
	fl.BoolVar(&opts.NoWarm, "no-warm", false, noWarmUsage)
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
	if f.Global.Verbose && art.NPMSignature != nil {
		termtext.Fprintf(f.IO.ErrOut, "spirit: %s\n", describeNPMSignature(art.ExpectName+"@"+art.ExpectVersion, art.NPMRegistry, art.NPMSignature))
	}
	req := art.Request(opts.Replace, opts.Yes)

	res, err := installWithConfirm(ctx, opts, in, req)
	var ie *manifest.InvalidError
	if errors.As(err, &ie) {
		return nil, withHint(err, invalidManifestHint(source, art, ie))
	}
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

// invalidManifestHint names the package whose manifest is invalid (an
// npm package by name@version, anything else by its source) with the
// first problem's hint, and says how to see every problem.
func invalidManifestHint(source string, art *install.Artifact, ie *manifest.InvalidError) string {
	pkg := strings.TrimSpace(source)
	if art.ExpectName != "" && art.ExpectVersion != "" {
		pkg = art.ExpectName + "@" + art.ExpectVersion
	}
	hint := pkg
	if h := ie.Problems[0].Hint; h != "" {
		hint += ": " + h
	} else if d := ie.Problems[0].Detail; d != "" {
		hint += ": " + d
	}
	if art.Kind == install.KindDir || art.Kind == install.KindArchive {
		return hint + "; spirit extension validate " + pkg + " lists every problem"
	}
	return hint
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
	names := nameCheck(in.Paths, opts.AllowNameCollision, &allowed)
	req.Check = func(m *manifest.Manifest) error {
		if check != nil {
			if err := check(m); err != nil {
				return err
			}
		}
		return names(m)
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
		return nil, withHint(err, collisionHint(ne, "pass --allow-name-collision to install it anyway"))
	case errors.Is(err, install.ErrLockTimeout):
		return nil, withHint(err, "another spirit command is still changing extensions; try again, or raise --lock-timeout")
	case errors.Is(err, install.ErrInUse):
		return nil, withHint(err, inUseHint)
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
	// new extension and its static prompt cached; Node is started only when
	// it listens for the event or has a system prompt.
	afterInstall(ctx, f, res.Manifest, opts.NoWarm)
	return res, nil
}

// nameCheck is the install.Request.Check of every command that installs:
// it refuses a manifest whose tools would newly share an invocation name
// with another installed extension (exthost.CheckNames), unless allow, in
// which case the collision is stored in *allowed for the command to note.
func nameCheck(p *paths.Paths, allow bool, allowed **exthost.NameCollisionError) func(*manifest.Manifest) error {
	return func(m *manifest.Manifest) error {
		list, err := install.List(p)
		if err != nil {
			return err
		}
		ne := exthost.CheckNames(list, m)
		if ne != nil && !allow {
			return ne
		}
		*allowed = ne
		return nil
	}
}

// updateNameCheck is nameCheck for update and sync, which have no
// --allow-name-collision: the refusal says how to install it anyway.
func updateNameCheck(p *paths.Paths) func(*manifest.Manifest) error {
	var allowed *exthost.NameCollisionError
	check := nameCheck(p, false, &allowed)
	return func(m *manifest.Manifest) error {
		err := check(m)
		var ne *exthost.NameCollisionError
		if errors.As(err, &ne) {
			return withHint(err, collisionHint(ne, "to install it anyway: 'spirit extension install SOURCE --replace --allow-name-collision'"))
		}
		return err
	}
}

// collisionHint says which extension gets which name in the apps' order,
// then how to go past the refusal.
func collisionHint(ne *exthost.NameCollisionError, past string) string {
	return fmt.Sprintf("in the apps' order %s; %s", strings.Join(ne.Assignments(), "; "), past)
}

// inUseHint answers an install.ErrInUse (Windows does not move a folder
// that a running program holds).
const inUseHint = "stop what runs the extension (spirit mcp serve, a spirit extension call, the Spirit Agent app), then try again"

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

// describeNPMSignature says what the registry signature check of an npm
// install found, for -v and info.
func describeNPMSignature(pkg, registry string, sig *npm.SignatureCheck) string {
	switch sig.Status {
	case npm.SignatureVerified:
		return fmt.Sprintf("registry signature of %s verified with key %s of %s", pkg, strings.Join(sig.KeyIDs, ", "), registry)
	case npm.SignatureNoKeys:
		return fmt.Sprintf("registry %s publishes no signing keys: nothing was verified for %s beyond its integrity", registry, pkg)
	case npm.SignatureUnknown:
		return fmt.Sprintf("offline, and the signing keys of %s are not cached: nothing was verified for %s beyond its integrity", registry, pkg)
	}
	return "registry signature of " + pkg + ": " + sig.Status
}
