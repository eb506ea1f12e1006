package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/manifest"
)

type RemoveOptions struct {
	f *Factory
	// IDs are the extensions to remove (package names or marketplace ids).
	IDs         []string
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
		Use:     "remove ID…",
		Aliases: []string{"uninstall"},
		Short:   "Remove installed extensions (also broken ones)",
		Example: "  spirit extension remove my-ext\n  spirit extension remove my-ext other-ext --purge",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.IDs = args
			if runF != nil {
				return runF(opts)
			}
			return runRemove(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Purge, "purge", false, "also delete its settings, secrets, sandbox grants and the version kept for rollback")
	cmd.Flags().DurationVar(&opts.LockTimeout, "lock-timeout", install.DefaultLockTimeout, "how long to wait for another spirit command")
	return cmd
}

func runRemove(ctx context.Context, opts *RemoveOptions) error {
	for _, id := range opts.IDs {
		if strings.TrimSpace(id) == "" {
			return usageErrorf("Extension id cannot be empty")
		}
	}
	in, err := opts.f.installer(opts.LockTimeout)
	if err != nil {
		return err
	}
	return forEachArg(opts.f, opts.IDs, func(arg string) (any, error) {
		return removeOne(ctx, opts, in, arg)
	})
}

// removedJSON is what `remove --json` prints for one extension.
type removedJSON struct {
	ID      string `json:"id"`
	Version string `json:"version,omitempty"`
	Purged  bool   `json:"purged"`
}

func removeOne(ctx context.Context, opts *RemoveOptions, in *install.Installer, arg string) (*removedJSON, error) {
	id, err := installedID(ctx, opts.f, strings.TrimSpace(arg))
	if err != nil {
		return nil, err
	}
	removed, err := in.Remove(ctx, id, install.RemoveOptions{Purge: opts.Purge})
	switch {
	case errors.Is(err, install.ErrNotFound):
		return nil, withHint(err, "see 'spirit extension list' for the installed ids")
	case errors.Is(err, install.ErrLockTimeout):
		return nil, withHint(err, "another spirit command is still changing extensions; try again, or raise --lock-timeout")
	case errors.Is(err, install.ErrInUse):
		return nil, withHint(err, inUseHint)
	case err != nil:
		return nil, err
	}
	if opts.Purge && opts.PurgeSecrets != nil {
		if err := opts.PurgeSecrets(id, removed.Manifest); err != nil {
			return nil, fmt.Errorf("removed %s, but deleting its secrets failed: %w", id, err)
		}
	}
	res := &removedJSON{ID: id, Version: removed.Version(), Purged: opts.Purge}
	if opts.f.Global.JSON {
		return res, nil
	}
	_, err = termtext.Fprintf(opts.f.IO.Out, "Removed extension: %s\n", id)
	return res, err
}

// RollbackOptions are the inputs of `spirit extension rollback`.
