//go:build !linux

package install

// exchangeDirs swaps the directories a and b with three renames; the moment
// where b is missing is recorded in a journal and repaired by the next
// command (see exchangeByRenames and recoverSwaps). On Windows each rename
// waits out a folder briefly in use, and fails with an *InUseError when it
// stays in use, before anything changed.
func exchangeDirs(a, b string) error { return exchangeByRenames(a, b, moveDir) }
