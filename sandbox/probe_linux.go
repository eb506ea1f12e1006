//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// osModes are the EnvMode values that name a sandbox of this OS.
var osModes = []string{"bwrap", "landlock"}

// probeOS finds bubblewrap, else Landlock (mode "bwrap" or "landlock"
// asks for one and fails without it).
func probeOS(ctx context.Context, mode string) (Status, error) {
	var st Status
	if mode != "landlock" {
		st = probeBwrap(ctx)
		if st.Kind == KindBwrap || mode == "bwrap" {
			if st.Kind == KindNone {
				return st, fmt.Errorf("%w: %s", ErrUnavailable, st.Reason)
			}
			return st, nil
		}
	}
	ll := probeLandlock()
	switch {
	case ll.Kind == KindLandlock && st.Reason != "":
		ll.Reason = st.Reason + "; using Landlock"
	case ll.Kind == KindNone && st.Reason != "":
		ll.Reason = st.Reason + "; " + ll.Reason
	}
	if ll.Kind == KindNone && mode == "landlock" {
		return ll, fmt.Errorf("%w: %s", ErrUnavailable, ll.Reason)
	}
	return ll, nil
}

// probeLandlock checks the kernel's Landlock and finds spirit's own
// executable, which re-executes itself (ExecCommand) to apply it.
func probeLandlock() Status {
	abi := landlockABI()
	if abi < 1 {
		return Status{Kind: KindNone, Reason: "Landlock is not enabled in this kernel"}
	}
	self, err := os.Executable()
	if err != nil {
		return Status{Kind: KindNone, Reason: "cannot find spirit's own executable for Landlock: " + err.Error()}
	}
	return Status{Kind: KindLandlock, Path: self, Version: "Landlock ABI " + strconv.Itoa(abi), LandlockABI: abi}
}

func probeBwrap(ctx context.Context) Status {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return Status{Kind: KindNone, Reason: "bubblewrap (bwrap) is not installed"}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// The same namespaces as a real run, around a program that exists on
	// every system.
	args := []string{"--unshare-user-try", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--new-session", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return Status{Kind: KindNone, Path: path, Reason: "bubblewrap cannot run here: " + firstLine(msg)}
	}
	st := Status{Kind: KindBwrap, Path: path, LandlockABI: landlockABI()}
	if out, err := exec.CommandContext(ctx, path, "--version").Output(); err == nil {
		st.Version = strings.TrimSpace(string(out))
	}
	// Landlock's scoping sets no_new_privs, which a setuid bwrap cannot
	// run under.
	if fi, err := os.Stat(path); err == nil && fi.Mode()&os.ModeSetuid == 0 && st.LandlockABI >= 6 {
		if self, err := os.Executable(); err == nil {
			st.Scoper = self
		}
	}
	return st
}
