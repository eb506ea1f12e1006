package mcp

import "runtime/debug"

// TuneGC sets the garbage collector for a long-running server process and
// returns the function that restores the previous settings. A tools/call
// leaves about 70–80 KiB of garbage (the SDK decodes its params and its
// _meta each with a fresh decoder whose first buffer is 32 KiB) over a live
// heap of about 3 MiB, so at the default GOGC the collector runs every ~40
// calls; GOGC=400 collects a quarter as often, and a 256 MiB soft memory
// limit keeps a large tool result from growing the heap by the same
// factor. Callers leave it out when the user set GOGC or GOMEMLIMIT.
func TuneGC() (restore func()) {
	gc := debug.SetGCPercent(400)
	limit := debug.SetMemoryLimit(256 << 20)
	return func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(limit)
	}
}
