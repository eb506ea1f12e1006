package cli

import (
	"runtime/debug"
	"testing"
)

func TestReadCommandGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	readCommandGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != readCommandGCPercent {
		t.Errorf("GOGC unset: GC percent %d, want %d", got, readCommandGCPercent)
	}
	readCommandGC(func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set by the user: GC percent changed to %d", got)
	}
}
