//go:build !linux && !darwin

package sandbox

import "context"

// osModes are the EnvMode values that name a sandbox of this OS.
var osModes = []string{"node"}

// probeOS: no OS sandbox spirit can apply here (Windows: the runtime's Job
// Object bounds processes and memory, not files), so Node's permission
// model is what confines files.
func probeOS(ctx context.Context, mode string) (Status, error) {
	return Status{Kind: KindNode, Reason: "no OS file sandbox on this system; Node's permission model only"}, nil
}
