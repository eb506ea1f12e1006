package mcp

import "runtime/debug"

// TuneGC sets the garbage collector for a long-running server process and
// returns the function that restores the previous settings. The SDK
// decodes every message with a fresh 32 KiB buffer (several per call), all
// garbage at once, so at the default GOGC the collector takes about a third
// of the CPU of a run of calls; GOGC=400 collects a quarter as often, and a
// 256 MiB soft memory limit keeps a large tool result from growing the heap
// by the same factor. Callers leave it out when the user set GOGC or
// GOMEMLIMIT.
func TuneGC() (restore func()) {
	gc := debug.SetGCPercent(400)
	limit := debug.SetMemoryLimit(256 << 20)
	return func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(limit)
	}
}
