// Command spirit is the extension package manager, marketplace client,
// registry builder and extension host of Spirit Agent.
package main

import (
	"os"

	"github.com/spiritagents/spirit/internal/cli"
)

func main() { os.Exit(cli.Main()) }
