//go:build unix

package exthost

import (
	"os/exec"
	"syscall"
)

// termGroup asks the process group that sysProcAttr gave the extension to
// end (SIGTERM).
func termGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGTERM) }

// killGroup kills the extension's process group (SIGKILL).
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

// startGroup has nothing to do on Unix: sysProcAttr made the group.
func startGroup(*exec.Cmd) error { return nil }

// endGroup has nothing to release on Unix once the runner has exited.
func endGroup(int) {}
