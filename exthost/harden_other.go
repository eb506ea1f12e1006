//go:build !linux

package exthost

// HardenProcess marks the calling process non-dumpable on Linux; elsewhere
// it does nothing.
func HardenProcess() error { return nil }
