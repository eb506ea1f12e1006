package cli

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/termtext"
)

// EnableOptions are the inputs of `spirit extension enable` and `disable`.
type EnableOptions struct {
	f           *Factory
	IDs         []string
	Enable      bool
	LockTimeout time.Duration
}

func newCmdEnable(f *Factory, runF func(*EnableOptions) error) *cobra.Command {
	return newCmdEnableDisable(f, true, runF)
}

func newCmdDisable(f *Factory, runF func(*EnableOptions) error) *cobra.Command {
	return newCmdEnableDisable(f, false, runF)
}

func newCmdEnableDisable(f *Factory, enable bool, runF func(*EnableOptions) error) *cobra.Command {
	opts := &EnableOptions{f: f, Enable: enable}
	cmd := &cobra.Command{
		Use:   "disable ID…",
		Short: "Turn extensions off without removing them",
		Long: `Turn extensions off without removing them. A disabled extension is invisible to
the Spirit Agent apps and to spirit's runtime (tools, prompt, MCP, events), and
keeps its files, version, record, settings and secrets: its package moves out of
the host's extensions folder into .spirit/disabled/ and its entry out of
extensions.json. 'spirit extension enable' puts both back as they were. Each
extension is its own atomic step, under the same lock as install.`,
		Example: "  spirit extension disable my-ext\n  spirit extension disable my-ext acme.weather",
	}
	if enable {
		cmd.Use, cmd.Short = "enable ID…", "Turn disabled extensions back on"
		cmd.Long = `Turn disabled extensions back on: the package moves back into the host's
extensions folder and its extensions.json entry is restored as it was, so the
Spirit Agent apps and spirit's runtime see it again.`
		cmd.Example = "  spirit extension enable my-ext"
	}
	cmd.Args = cobra.MinimumNArgs(1)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		opts.IDs = args
		if runF != nil {
			return runF(opts)
		}
		return runEnable(cmd.Context(), opts)
	}
	cmd.Flags().DurationVar(&opts.LockTimeout, "lock-timeout", install.DefaultLockTimeout, "how long to wait for another spirit command")
	return cmd
}

func runEnable(ctx context.Context, opts *EnableOptions) error {
	f := opts.f
	in, err := f.installer(opts.LockTimeout)
	if err != nil {
		return err
	}
	return forEachArg(f, opts.IDs, func(arg string) (any, error) {
		found, err := lookupInstalled(ctx, f, arg)
		if err != nil {
			return nil, err
		}
		was := found.Disabled
		var res *install.Installed
		if opts.Enable {
			res, err = in.Enable(ctx, found.ID)
		} else {
			res, err = in.Disable(ctx, found.ID)
		}
		if errors.Is(err, install.ErrLockTimeout) {
			return nil, withHint(err, "another spirit command is still changing extensions; try again, or raise --lock-timeout")
		}
		if errors.Is(err, install.ErrInUse) {
			return nil, withHint(err, inUseHint)
		}
		if err != nil {
			return nil, err
		}
		if f.Global.JSON {
			return toInstalledJSON(res, "", ""), nil
		}
		switch {
		case opts.Enable && !was:
			termtext.Fprintf(f.IO.Out, "%s is already enabled.\n", res.ID)
		case opts.Enable:
			termtext.Fprintf(f.IO.Out, "Enabled extension: %s\n", res.ID)
		case was:
			termtext.Fprintf(f.IO.Out, "%s is already disabled.\n", res.ID)
		default:
			termtext.Fprintf(f.IO.Out, "Disabled extension: %s\n", res.ID)
		}
		return nil, nil
	})
}
