package cli

import "github.com/spf13/cobra"

// addRegistryCommands adds the registry command group to the root.
func addRegistryCommands(root *cobra.Command, f *Factory) {}
