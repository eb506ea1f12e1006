package cli

import (
	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/internal/iostreams"
)

// CommandTree returns spirit's command tree for the reference generator
// (internal/gendocs): built on a Factory whose streams are buffers and
// whose environment is empty, so that the help text of no flag depends on
// the machine that generates it. Nothing of it is run.
func CommandTree() *cobra.Command {
	ios, _, _, _ := iostreams.Test()
	f := &Factory{IO: ios, Getenv: func(string) string { return "" }}
	started := false
	return newCmdRoot(f, &started)
}
