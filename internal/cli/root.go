// Package cli wires spirit's commands with cobra. It is the only package
// that talks to the terminal: it maps errors to exit codes and hint lines,
// and chooses between human and --json output.
package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/internal/build"
	"github.com/spiritagents/spirit/internal/termtext"
)

// sameInterrupt is how long after the first interrupt another one counts
// as the same: a launcher between the terminal and spirit (npx, the bin of
// the npm package) passes on the Ctrl-C that the terminal also sent spirit.
const sameInterrupt = 300 * time.Millisecond

// Main runs spirit with the process's arguments and returns the exit code.
// It makes the one context of the run: the first interrupt (SIGINT or
// SIGTERM) cancels it, so commands stop cleanly; a second one, once
// sameInterrupt has passed, kills the process as usual.
func Main() int {
	// Before anything reads a token or a secret: extensions run as the same
	// user and must not read spirit's environment or memory through /proc.
	_ = exthost.HardenProcess()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
		same := time.NewTimer(sameInterrupt)
		for {
			select {
			case <-sigs:
			case <-same.C:
				signal.Stop(sigs)
				return
			}
		}
	}()
	return Run(ctx, NewFactory(), nil)
}

// Run runs spirit with f and args (nil means os.Args[1:]) under ctx and
// returns the exit code. Every command takes ctx from cmd.Context().
func Run(ctx context.Context, f *Factory, args []string) int {
	started := false
	root := newCmdRoot(f, &started)
	if args != nil {
		root.SetArgs(args)
	}
	err := root.ExecuteContext(ctx)
	if f.jq != nil {
		// A command that fails may have printed its whole report first
		// (validate finding problems, install with one source failing):
		// that is filtered too; the command's error stays the one reported.
		f.IO.Out = f.jq.out
		if ferr := f.jq.flush(); err == nil {
			err = ferr
		}
	}
	if err == nil {
		return ExitOK
	}
	// Anything that fails before a command starts running is a mistake in
	// the call itself: an unknown command or flag, or a wrong argument count.
	if started && ctx.Err() != nil {
		// The temporary files of the work that stopped were removed on
		// the way out; installs are untouched.
		err = errInterrupted
	}
	var ue *usageError
	if !started && !errors.As(err, &ue) {
		err = &usageError{err}
	}
	if !started && !f.Global.JSON {
		// cobra finds an unknown command before it parses flags.
		if args == nil {
			args = os.Args[1:]
		}
		f.Global.JSON = slices.Contains(args, "--json")
	}
	printError(f.IO.ErrOut, err, f.Global.JSON)
	return exitCode(err)
}

func newCmdRoot(f *Factory, started *bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "spirit <command>",
		Short: "Extension manager, marketplace client, registry builder and host for Spirit Agent",
		Long: `spirit validates, installs, updates and runs Spirit Agent extensions, builds the
marketplace index, and serves installed extensions to any agent over MCP.

It reads and writes the same data directory as the Spirit Agent apps.`,
		Example: `  spirit extension validate ./my-ext
  spirit extension install ./my-ext.zip
  spirit extension list --json
  spirit registry build --root ./registry-repo`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			*started = true
			if _, err := f.HostKind(); err != nil {
				return err
			}
			if f.Global.JQ != "" {
				jq, err := newJQFilter(f.Global.JQ, f.IO.Out)
				if err != nil {
					return err
				}
				f.Global.JSON, f.jq, f.IO.Out = true, jq, jq
			}
			if f.Global.Verbose {
				f.IO.Progress().SetVerbose(true)
				if p, err := f.Paths(); err == nil {
					termtext.Fprintf(f.IO.ErrOut, "spirit: data directory %s, host %s, extensions in %s\n", p.DataDir, p.Host, p.ExtensionsDir())
				}
				if r := f.RegistrySource(); r != "" {
					termtext.Fprintf(f.IO.ErrOut, "spirit: marketplace index %s\n", r)
				}
			}
			return nil
		},
	}
	// --version is ours, not cobra's, so that it answers as `spirit version`
	// does, --json and --jq included.
	showVersion := cmd.Flags().Bool("version", false, "print the version of spirit, its commit and the commit's date")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if *showVersion {
			return runVersion(&VersionOptions{f: f, Info: build.Read()})
		}
		return c.Help()
	}
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)
	cmd.SetFlagErrorFunc(flagError)

	pf := cmd.PersistentFlags()
	pf.StringVar(&f.Global.DataDir, "data-dir", "", "Spirit Agent data directory (env SPIRIT_AGENT_DATA_DIR)")
	pf.StringVar(&f.Global.Host, "host", "", "host whose extensions to manage: cli or desktop (env SPIRIT_HOST; default cli)")
	pf.BoolVar(&f.Global.JSON, "json", false, "print machine-readable JSON, also for errors")
	pf.StringVar(&f.Global.JQ, "jq", "", "filter the JSON output through a jq `expression` (implies --json)")
	pf.StringVar(&f.Global.Registry, "registry", "", "marketplace index: https URL, directory or git+URL (env SPIRIT_REGISTRY)")
	pf.BoolVar(&f.Global.RequireSigned, "require-signed", false, "refuse a marketplace index that is not signed (env SPIRIT_REQUIRE_SIGNED=1)")
	pf.BoolVar(&f.Global.AllowExpiredIndex, "allow-expired-index", false, "accept a signed index whose metadata has expired (an old offline mirror), with a warning")
	pf.BoolVarP(&f.Global.Verbose, "verbose", "v", false, "say which data directory, host and marketplace index are used (on stderr)")
	_ = cmd.RegisterFlagCompletionFunc("host", cobra.FixedCompletions([]string{"cli", "desktop"}, cobra.ShellCompDirectiveNoFileComp))

	cmd.AddCommand(
		newCmdVersion(f, nil),
		newCmdExtension(f),
	)
	addRegistryCommands(cmd, f)
	addMCPCommands(cmd, f)
	addSandboxCommands(cmd, f)
	applyArgRules(cmd)
	applyCompletions(cmd, f)
	return cmd
}

// groupRunE makes a command that only groups others fail with a usage error
// when it is called on its own.
func groupRunE(cmd *cobra.Command, args []string) error {
	return usageErrorf("%s needs a subcommand: %s", cmd.CommandPath(), subcommandNames(cmd))
}

func subcommandNames(cmd *cobra.Command) string {
	s := ""
	for _, c := range cmd.Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += c.Name()
	}
	return s
}

// VersionOptions are the inputs of `spirit version` and `spirit --version`.
type VersionOptions struct {
	f    *Factory
	Info build.Info
}

func newCmdVersion(f *Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{f: f}
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of spirit",
		Long: `Print the version of spirit, the commit it was built from and that commit's date,
as far as they are known: a binary installed with go install from a module proxy
knows its version only.`,
		Example: "  spirit version\n  spirit --version --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Info = build.Read()
			if runF != nil {
				return runF(opts)
			}
			return runVersion(opts)
		},
	}
}

func runVersion(opts *VersionOptions) error {
	out := opts.f.IO.Out
	if opts.f.Global.JSON {
		return writeJSON(out, opts.Info)
	}
	_, err := termtext.Fprintf(out, "%s\n", opts.Info.Line())
	return err
}
