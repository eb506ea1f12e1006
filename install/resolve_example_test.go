package install_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/paths"
)

// A front end resolves what the user typed, then installs the artifact;
// the npm client and the marketplace resolver are injected when wanted.
func ExampleResolver() {
	tmp, _ := os.MkdirTemp("", "spirit-example-")
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "hello")
	_ = os.MkdirAll(src, 0o755)
	_ = os.WriteFile(filepath.Join(src, "package.json"), []byte(`{"name": "hello", "version": "1.0.0",
  "spiritExtension": {"displayName": "Hello", "supportedHosts": ["cli"]}}`), 0o644)

	ctx := context.Background()
	r := &install.Resolver{} // add NPM, Download or Marketplace to accept those sources
	art, err := r.Resolve(ctx, src)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer art.Close()
	in := &install.Installer{Paths: paths.New(filepath.Join(tmp, "data"), paths.HostCLI)}
	res, err := in.Install(ctx, art.Request(false, false))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(art.Kind, res.ID, res.Manifest.Version, res.Record.InstallSource)
	// Output: dir hello 1.0.0 archive
}
