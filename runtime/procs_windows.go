package runtime

import (
	"errors"
	"os/exec"
	"syscall"
)

// sysProcAttr gives the extension's process a console process group of its
// own, so a Ctrl-C meant for it does not reach spirit.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killDescendants has nothing to do on Windows: what the extension
// spawned is ended with it.
func killDescendants(int) {}

// errNoGroupSignal says Windows has no signal to ask a process group to end.
var errNoGroupSignal = errors.New("no process group signal on Windows")

// termGroup cannot ask politely on Windows; the caller kills the process.
func termGroup(int) error { return errNoGroupSignal }

// killGroup has nothing more to kill on Windows than the process itself.
func killGroup(int) {}

// Supervise is Linux only.
func Supervise(args []string) error {
	return errors.New(SuperviseCommand + " is supported on Linux only")
}

// Supervised leaves cmd alone outside Linux.
func Supervised(cmd *exec.Cmd, exe string) {}
