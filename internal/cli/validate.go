package cli

import (
	"github.com/spf13/cobra"
)

// ValidateOptions are the inputs of `spirit extension validate`.
type ValidateOptions struct {
	f      *Factory
	Paths  []string
	Strict bool
	Host   string
}

func newCmdValidate(f *Factory, runF func(*ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{f: f}
	cmd := &cobra.Command{
		Use:   "validate [PATH…]",
		Short: "Check extension packages and report every problem",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return nil
		},
	}
	return cmd
}
