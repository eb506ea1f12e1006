package cli

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/termtext"
)

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
	if errors.Is(err, install.ErrInUse) {
		return withHint(err, inUseHint)
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
