// Command dist makes spirit's release files, the work of `make dist`:
//
//	dist [-out DIR] [-targets "linux/amd64 …"] [-version V] [-npm=false]
//
// For each target it builds cmd/spirit (CGO_ENABLED=0, -trimpath,
// -buildvcs=false, version, commit and date passed with -ldflags) and writes
// into DIR (default dist):
//
//	spirit_<version>_<os>_<arch>.tar.gz       (.zip for windows) the binary, LICENSE, README.md
//	spirit_<version>_<os>_<arch>.<ext>.sbom.json  CycloneDX JSON of the binary's modules
//	npm/spiritagents-spirit-<os>-<cpu>-<version>.tgz  the platform package (npm pack)
//	npm/spiritagents-spirit-<version>.tgz     the main package: launcher + optionalDependencies
//	checksums.txt                             sha256sum lines of all of the above
//
// The output is reproducible: two runs at the same commit give the same
// bytes. Times are the commit's (SOURCE_DATE_EPOCH when set, else `git log
// -1 --format=%ct`), archive entries are sorted with fixed owner and modes,
// gzip headers carry no name or time, and the SBOM's time and serial number
// derive from the commit and the binary. A target that does not build fails
// the whole run; DIR is replaced only when everything was made.
//
// The version is `git describe --tags --always --dirty` unless -version is
// given, mapped to a semantic version for npm (see semverOf). It is a Go
// program rather than GoReleaser: GoReleaser is a very large tool to `go
// install` on every test machine, needs syft for SBOMs, and has no npm
// packages of this layout; this program is small, uses only the standard
// library and runs in `make test` (see dist_test.go) in seconds once the
// build cache is warm.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	var opts Options
	flag.StringVar(&opts.Out, "out", "dist", "output `directory` (replaced)")
	targets := flag.String("targets", strings.Join(AllTargets, " "), "space-separated GOOS/GOARCH `list`")
	flag.StringVar(&opts.Version, "version", "", "version (default: git describe --tags --always --dirty)")
	flag.BoolVar(&opts.NPM, "npm", true, "also make the npm packages")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "dist: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	opts.Targets = strings.Fields(*targets)
	opts.Log = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := Run(ctx, opts); err != nil {
		fmt.Fprintf(os.Stderr, "dist: %v\n", err)
		os.Exit(1)
	}
}
