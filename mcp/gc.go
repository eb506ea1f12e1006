package mcp

import (
	"runtime"
	"runtime/debug"
)

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

// TuneStdio sets the scheduler for serving one stdio session and returns
// the function that restores the previous setting: one P (GOMAXPROCS=1).
// A stdio session relays each call between two pipes (the client's and
// the extension's Node process), a few goroutine hand-offs a call with
// little work between them; with more than one P every hand-off may wake
// another thread of the process, and on 2 cores that cost about a fifth
// of the server's CPU a call (scripts/bench-mcp.sh). Callers leave it out
// when the user set GOMAXPROCS, and for the http transport, whose
// sessions run side by side.
func TuneStdio() (restore func()) {
	n := runtime.GOMAXPROCS(1)
	return func() { runtime.GOMAXPROCS(n) }
}
