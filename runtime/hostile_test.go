package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/install"
)

// hostileHost returns a Host over the hostile fixture (and caps-both) with
// short timeouts.
func hostileHost(t *testing.T, mod func(*Options)) *Host {
	t.Helper()
	p := installFixtures(t, "hostile", "caps-both")
	return newTestHost(t, p, func(o *Options) {
		o.CallTimeout = 2 * time.Second
		o.KillGrace = 300 * time.Millisecond
		if mod != nil {
			mod(o)
		}
	})
}

// An extension that closes its protocol pipe and lives on: the call fails
// and the process is stopped before its state is read (this used to race
// with the goroutine waiting for the process; run with -race).
func TestClosedPipe(t *testing.T) {
	h := hostileHost(t, nil)
	_, err := call(t, h, "@fixture/hostile/closepipe", "")
	var xe *ExitError
	if !errors.As(err, &xe) {
		t.Fatalf("closepipe: %v", err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestFailureMarshalNilErr(t *testing.T) {
	b, err := json.Marshal(Failure{ExtensionID: "x"})
	if err != nil || string(b) != `{"extensionId":"x","error":""}` {
		t.Fatalf("%s %v", b, err)
	}
	b, err = json.Marshal(Failure{ExtensionID: "x", Err: errors.New("boom")})
	if err != nil || string(b) != `{"extensionId":"x","error":"boom"}` {
		t.Fatalf("%s %v", b, err)
	}
}

// Reinstalling an extension replaces its compiled schemas instead of
// adding a new set per install time.
func TestSchemaCacheBounded(t *testing.T) {
	p := installFixtures(t, "caps-both")
	installedAt := int64(1)
	h := newTestHost(t, p, func(o *Options) {
		o.List = func() ([]install.Installed, error) {
			exts, err := install.List(p)
			for i := range exts {
				exts[i].InstalledAtUnixMs = installedAt
			}
			return exts, err
		}
	})
	for i := range 5 {
		installedAt = int64(i + 1)
		h.Refresh()
		if got, err := call(t, h, "caps-both/hello", "{}"); err != nil || got != "hi" {
			t.Fatalf("call %d: %q %v", i, got, err)
		}
	}
	h.schemaMu.Lock()
	n := 0
	for _, set := range h.schemas {
		n += len(set.byKey)
	}
	h.schemaMu.Unlock()
	if n != 1 {
		t.Fatalf("%d compiled schemas cached after 5 installs of one tool, want 1", n)
	}
}

// The code of the host's JSON-RPC error reaches the extension as err.code.
func TestHostErrorCode(t *testing.T) {
	h := hostileHost(t, nil)
	got, err := call(t, h, "@fixture/hostile/hostcode", "")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`"code": %d`, codeHost)
	if !strings.Contains(got, want) {
		t.Fatalf("got %s, want %s", got, want)
	}
}

