package cli

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
)

// The context given to Run reaches the commands: a run whose context is
// already cancelled asks the network nothing and ends as an interrupted
// run does.
func TestRunTakesTheContext(t *testing.T) {
	srv := newStaticRegistry(t, fixtureRegistry)
	data := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ios, _, _, errOut := iostreams.Test()
	f := &Factory{
		IO: ios,
		Getenv: func(k string) string {
			return map[string]string{"SPIRIT_AGENT_DATA_DIR": data, "SPIRIT_REGISTRY": srv.URL}[k]
		},
		Now:        time.Now,
		HTTPClient: func() *http.Client { return &http.Client{} },
	}
	code := Run(ctx, f, []string{"extension", "marketplace", "list"})
	if code != ExitInterrupted || errOut.String() != "Interrupted\n" {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	if n := srv.TotalHits(); n != 0 {
		t.Fatalf("a cancelled run made %d requests", n)
	}
}
