//go:build unix && !linux

package exthost

import (
	"errors"
	"os/exec"
	"syscall"
)

// sysProcAttr puts the extension's process in its own process group, so
// stopping it reaches what it spawned.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killDescendants is done by the process group kill alone outside Linux.
func killDescendants(int) {}

// Supervise is Linux only: elsewhere the process group kill is all there is.
func Supervise(args []string) error {
	return errors.New(SuperviseCommand + " is supported on Linux only")
}

// Supervised rewrites cmd so that exe runs it under Supervise; outside
// Linux it leaves cmd alone.
func Supervised(cmd *exec.Cmd, exe string) {}
