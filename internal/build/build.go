// Package build says which spirit the running binary is: its version, the
// commit it was built from and the time of that commit. `make build` sets
// them with the linker (see the Makefile's LDFLAGS). Otherwise they come
// from the build information the go command records: `go install
// …/cmd/spirit@v1.2.3` records the module version, a build in a git
// checkout records the commit and its time; an install from a module proxy
// has no commit to record. What is not known stays empty: nothing is made up.
package build

import (
	"runtime/debug"
	"strings"
)

// Set with -ldflags "-X github.com/spiritagents/spirit/internal/build.Version=…"
// (and .Commit, .Date). Version "dev" means not set.
var (
	Version = "dev"
	Commit  = ""
	Date    = ""
)

// Info describes the running binary. Its JSON form is the output of
// `spirit version --json`, a public contract: an unknown field is "".
type Info struct {
	// Version is a release version (v1.2.3), what `git describe` said at
	// `make build`, the module version of a `go install`, or "dev".
	Version string `json:"version"`
	// Commit is the full hash of the commit the binary was built from.
	Commit string `json:"commit"`
	// Date is the time of that commit, RFC 3339 in UTC: the build's date
	// in the sense of reproducible builds (two builds of a commit are the
	// same bytes).
	Date string `json:"date"`
}

// Read returns what is known about the running binary.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(Info{Version: Version, Commit: Commit, Date: Date}, bi)
}

// String returns the version of the running binary.
func String() string { return Read().Version }

// resolve fills what the linker did not set from the build information bi
// (nil when the binary has none).
func resolve(linked Info, bi *debug.BuildInfo) Info {
	out := linked
	if out.Version == "" {
		out.Version = "dev"
	}
	if bi == nil {
		return out
	}
	if out.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		out.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && out.Commit == "":
			out.Commit = s.Value
		case s.Key == "vcs.time" && out.Date == "":
			out.Date = s.Value
		}
	}
	return out
}

// Line is the one line of `spirit --version`: "spirit VERSION", then the
// commit (its first 12 digits) and its date when they are known, as in
// "spirit v1.2.3 (commit 0123456789ab, 2026-01-02T15:04:05Z)".
func (i Info) Line() string {
	var b strings.Builder
	b.WriteString("spirit ")
	b.WriteString(i.Version)
	var facts []string
	if i.Commit != "" {
		facts = append(facts, "commit "+i.Commit[:min(len(i.Commit), 12)])
	}
	if i.Date != "" {
		facts = append(facts, i.Date)
	}
	if len(facts) > 0 {
		b.WriteString(" (" + strings.Join(facts, ", ") + ")")
	}
	return b.String()
}
