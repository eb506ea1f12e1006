//go:build !linux

package install

import "os"

// exchangeDirs swaps the directories a and b with three renames; the moment
// where b is missing is recorded in a journal and repaired by the next
// command (see recoverSwaps).
func exchangeDirs(a, b string) error { return exchangeByRenames(a, b, os.Rename) }
