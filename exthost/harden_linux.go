package exthost

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// HardenProcess marks the calling process non-dumpable, so a process of the
// same user (an extension, or anything it spawns) cannot read its
// /proc/PID/environ or /proc/PID/mem, nor attach a debugger to it. Call it
// early in main, before secrets are read. It is a no-op outside Linux.
func HardenProcess() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("marking spirit non-dumpable: %w", err)
	}
	return nil
}
