package cli

import "github.com/spf13/cobra"

func newCmdExtension(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "extension <command>",
		Aliases: []string{"ext"},
		Short:   "Validate, install, list, remove and run extensions",
		Args:    cobra.NoArgs,
		RunE:    groupRunE,
	}
	cmd.AddCommand(newCmdValidate(f, nil), newCmdCreate(f, nil), newCmdLogs(f, nil), newCmdPack(f, nil))
	addInstallCommands(cmd, f)
	addMarketplaceCommands(cmd, f)
	addRuntimeCommands(cmd, f)
	return cmd
}
