package cli

import (
	"strings"
	"testing"

	"github.com/spiritagents/spirit/internal/iostreams"
)

func TestDownloadProgress(t *testing.T) {
	for _, tty := range []bool{true, false} {
		ios, _, _, errOut := iostreams.Test()
		ios.SetTTY(tty)
		p := &downloadProgress{f: &Factory{IO: ios}}
		p.Start("@acme/x@1.0.0", 4<<20)
		p.Add(1 << 20)
		p.Add(3 << 20)
		p.Done(nil)
		got := errOut.String()
		if tty && !strings.Contains(got, "Downloading @acme/x@1.0.0 [#######") || tty && !strings.HasSuffix(got, "\n") {
			t.Errorf("tty: got %q", got)
		}
		if !tty && got != "" {
			t.Errorf("piped: want nothing, got %q", got)
		}
	}
}
