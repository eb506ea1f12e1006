package exthost

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/spiritagents/spirit/install"
)

// sandbox hands cmd to Options.Sandbox, which may rewrite its path,
// arguments and environment; the extra files (fd 3 and 4) stay as they are.
func (h *Host) sandbox(ctx context.Context, ext *install.Installed, cmd *exec.Cmd) error {
	if h.opts.Sandbox == nil {
		return nil
	}
	if err := h.opts.Sandbox(ctx, ext, cmd); err != nil {
		return fmt.Errorf("sandbox for %s: %w", ext.ID, err)
	}
	return nil
}
