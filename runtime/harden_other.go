//go:build !linux

package runtime

// HardenProcess marks the calling process non-dumpable on Linux; elsewhere
// it does nothing.
func HardenProcess() error { return nil }
