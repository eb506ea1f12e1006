// Package build holds facts about the running binary that the linker sets.
package build

import "runtime/debug"

// Version is set with -ldflags "-X github.com/spiritagents/spirit/internal/build.Version=…".
// When it is left at "dev", the module version from the build info is used if there is one.
var Version = "dev"

// Commit and Date are the commit and its time (RFC 3339) of a release build,
// set the same way by make dist; empty otherwise.
var (
	Commit string
	Date   string
)

// String returns the version of this binary.
func String() string {
	if Version != "dev" {
		return Version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return Version
}
