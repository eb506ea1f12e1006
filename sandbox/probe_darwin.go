//go:build darwin

package sandbox

import (
	"context"
	"fmt"
	"os"
)

// osModes are the EnvMode values that name a sandbox of this OS.
var osModes = []string{"seatbelt"}

// probeOS finds Seatbelt's sandbox-exec, part of every macOS.
func probeOS(ctx context.Context, mode string) (Status, error) {
	if _, err := os.Stat(SandboxExec); err != nil {
		st := Status{Kind: KindNone, Reason: SandboxExec + " is missing"}
		if mode == "seatbelt" {
			return st, fmt.Errorf("%w: %s", ErrUnavailable, st.Reason)
		}
		return st, nil
	}
	return Status{Kind: KindSeatbelt, Path: SandboxExec, Version: "Seatbelt"}, nil
}
