package registry

import "github.com/rogpeppe/go-internal/diff"

// UnifiedDiff returns a unified diff from a to b, labelled with the two
// names, or "" when they are equal. A missing file is an empty one. It is
// go-internal's anchored ("patience") diff, which runs in O(n log n) on
// any input, so a hostile pull request cannot make --check slow.
func UnifiedDiff(nameA, nameB string, a, b []byte) string {
	return string(diff.Diff(nameA, a, nameB, b))
}
