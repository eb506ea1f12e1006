package cli

import "github.com/spf13/cobra"

// addMCPCommands adds the mcp command group to the root.
func addMCPCommands(root *cobra.Command, f *Factory) {}
