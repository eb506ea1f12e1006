package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/paths"
)

// TestActivateCheckTimeout: an activate that never returns is reported at
// /main once the activation timeout passes, and the check returns.
func TestActivateCheckTimeout(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	dir := filepath.Join(t.TempDir(), "hangs")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "runtime", "activate-hangs"))); err != nil {
		t.Fatal(err)
	}
	ios, _, _, _ := iostreams.Test()
	env := map[string]string{"PATH": os.Getenv("PATH"), "HOME": t.TempDir(), "SPIRIT_AGENT_DATA_DIR": t.TempDir()}
	f := &Factory{IO: ios, Getenv: func(k string) string { return env[k] }, Now: time.Now}
	c := &activateChecker{f: f, host: paths.HostCLI, timeout: 300 * time.Millisecond}
	probs := c.check(t.Context(), dir)
	if len(probs) != 1 || probs[0].Pointer != "/main" || probs[0].Severity != manifest.SeverityError ||
		!strings.Contains(probs[0].Message, "did not finish within 300ms") {
		t.Fatalf("problems = %+v", probs)
	}
}
