//go:build !linux

package runtime

import "syscall"

// sysProcAttr puts the extension's process in its own process group, so
// stopping it reaches what it spawned.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killDescendants is done by the process group kill alone outside Linux.
func killDescendants(int) {}
