package cli

import "runtime/debug"

// readCommandGCPercent is the GOGC of list, tools and info.
const readCommandGCPercent = 400

// readCommandGC lets the heap of a read command (list, tools, info) grow to
// five times what is live before a collection, unless the user set GOGC.
// These commands run for tens of milliseconds and allocate a few MB, most
// of it garbage at once (decoded manifests); with the default GOGC=100 and
// its 4 MB minimum heap, `extension list` at 300 extensions ran two or
// three collections, about a fifth of its CPU. Its live heap stays near
// 2 MB, so the peak grows by a few MB at most. `mcp serve` has its own
// setting (mcp.TuneGC); other commands keep the default.
func readCommandGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(readCommandGCPercent)
	}
}
