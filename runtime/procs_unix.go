//go:build unix

package runtime

import "syscall"

// termGroup asks the process group that sysProcAttr gave the extension to
// end (SIGTERM).
func termGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGTERM) }

// killGroup kills the extension's process group (SIGKILL).
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
