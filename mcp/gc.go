package mcp

import "runtime/debug"

// TuneGC sets the garbage collector for a long-running server process and
// returns the function that restores the previous settings. A tools/call
// leaves about 18 KiB of garbage (the SDK decodes each message, its params
// and its _meta with a fresh decoder; third_party/segmentio-encoding sizes
// their buffers to the message, which were 32 KiB each) over a live heap
// of about 3 MiB, so at the default GOGC the collector runs every ~150
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
