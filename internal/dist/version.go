package main

import (
	"fmt"
	"regexp"
	"strings"
)

// semverRE is the regular expression of semver.org (2.0.0).
var semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// describeRE is `git describe --always` output without any tag: an
// abbreviated commit, perhaps marked dirty.
var describeRE = regexp.MustCompile(`^[0-9a-f]{4,40}(-dirty)?$`)

// semverOf maps a version, as tagged or as git describe prints it, to the
// semantic version npm requires and the file names use:
//
//	v1.2.3               → 1.2.3
//	v1.2.3-rc.1          → 1.2.3-rc.1
//	v1.2.3-4-gabc1234    → 1.2.3-4-gabc1234   (4 commits after the tag: a prerelease)
//	abc1234[-dirty]      → 0.0.0-gabc1234[-dirty]  (no tag yet)
func semverOf(version string) (string, error) {
	v := strings.TrimPrefix(version, "v")
	if semverRE.MatchString(v) {
		return v, nil
	}
	if describeRE.MatchString(version) {
		return "0.0.0-g" + version, nil
	}
	return "", fmt.Errorf("version %q is neither a semantic version (v1.2.3) nor git describe output", version)
}
