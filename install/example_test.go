package install_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/paths"
)

// Installing a folder into a data directory, then listing what is installed:
// the same tree the Spirit Agent apps read.
func ExampleInstaller_Install() {
	dataDir, err := os.MkdirTemp("", "spirit-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dataDir)

	p := paths.New(dataDir, paths.HostCLI)
	in := &install.Installer{Paths: p}
	res, err := in.Install(context.Background(), install.Request{
		Path:   "../testdata/examples/hello-tools",
		Source: "./hello-tools",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.ID, res.Version(), res.Previous == "")

	all, err := install.List(p)
	if err != nil {
		log.Fatal(err)
	}
	for _, x := range all {
		fmt.Println(x.ID, x.DisplayName())
	}
	// Output:
	// hello-tools 1.0.0 true
	// hello-tools Hello Tools
}
