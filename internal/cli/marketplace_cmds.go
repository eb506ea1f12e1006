package cli

import "github.com/spf13/cobra"

// addMarketplaceCommands adds the marketplace commands to the extension group.
func addMarketplaceCommands(parent *cobra.Command, f *Factory) {}
