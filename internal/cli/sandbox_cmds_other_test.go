//go:build !linux

package cli

import "github.com/rogpeppe/go-internal/testscript"

// sandboxCmds has no extra commands outside Linux (the scripts that use
// them run only there).
func sandboxCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return nil
}
