package exthost

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// exitNodeTooOld is the runner's exit code when Node.js is older than 18.
const exitNodeTooOld = 78

// exitProtocol is the runner's exit code when the host broke the protocol
// (a line over the size cap).
const exitProtocol = 76

// findNode returns the Node.js executable: explicit, else SPIRIT_NODE, else
// "node" on PATH.
func findNode(explicit string, getenv func(string) string) (string, error) {
	name := strings.TrimSpace(explicit)
	if name == "" {
		name = strings.TrimSpace(getenv("SPIRIT_NODE"))
	}
	if name == "" {
		name = "node"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", ErrNodeNotFound
	}
	return p, nil
}

// checkNodeVersion asks node for its version; it is only called to explain
// a runner that died before it answered.
func checkNodeVersion(node string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return nil
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	major, err := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	if err != nil || major >= 18 {
		return nil
	}
	return &NodeVersionError{Path: node, Version: v}
}
