package cli

import "github.com/spf13/cobra"

// addInstallCommands adds the install commands to the extension group.
func addInstallCommands(parent *cobra.Command, f *Factory) {}
