package cli

import "github.com/spf13/cobra"

// addRuntimeCommands adds the runtime commands to the extension group.
func addRuntimeCommands(parent *cobra.Command, f *Factory) {}
