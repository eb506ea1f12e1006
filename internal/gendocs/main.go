// Command gendocs writes spirit's command reference from its cobra tree:
// one Markdown page per command into docs/reference (spirit.md,
// spirit_extension_install.md, …) and one man page per command into
// docs/man (spirit.1, spirit-extension-install.1, …). `make docs` runs it.
//
// The output depends only on the command tree: no date, no version, no
// path of the machine, commands and flags in sorted order. A page of a
// command that no longer exists is removed (every *.md and *.1 in the two
// folders is the generator's). TestReferenceUpToDate fails when the
// checked-in pages differ from what this writes.
//
// It is its own generator rather than cobra's doc package, which would
// add go-md2man, blackfriday and a YAML library to go.mod for this one
// build step and stamps a date into every page unless told otherwise.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/spiritagents/spirit/internal/cli"
)

func main() {
	md := flag.String("md", "docs/reference", "folder of the Markdown pages")
	man := flag.String("man", "docs/man", "folder of the man pages")
	flag.Parse()
	if err := write(cli.CommandTree(), *md, *man); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}
