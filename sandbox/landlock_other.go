//go:build !linux

package sandbox

import "fmt"

func landlockABI() int { return 0 }

// Exec is the entry of spirit's re-exec under Landlock; Landlock is Linux
// only, so elsewhere it fails.
func Exec(args []string) error {
	return fmt.Errorf("%w: Landlock is Linux only", ErrUnavailable)
}

func landlockArgs(spec Spec, g grants, node, home, tmp string) ([]string, error) {
	return nil, fmt.Errorf("%w: Landlock is Linux only", ErrUnavailable)
}
