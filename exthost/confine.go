package exthost

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/spiritagents/spirit/install"
)

// confine hands cmd to Options.Confine, which may rewrite its path,
// arguments and environment; the extra files (fd 3 and 4) stay as they are.
func (h *Host) confine(ctx context.Context, ext *install.Installed, cmd *exec.Cmd) error {
	if h.opts.Confine == nil {
		return nil
	}
	if err := h.opts.Confine(ctx, ext, cmd); err != nil {
		return fmt.Errorf("sandbox for %s: %w", ext.ID, err)
	}
	return nil
}
