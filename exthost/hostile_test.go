package exthost

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
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

// callWithin runs a call and returns an error saying it wedged if it has
// not returned within d. It may run outside the test's goroutine.
func callWithin(t *testing.T, h *Host, d time.Duration, name, args string) (string, error) {
	t.Helper()
	type answer struct {
		text string
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := h.Call(t.Context(), CallRequest{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			done <- answer{err: err}
			return
		}
		done <- answer{text: res.Text}
	}()
	select {
	case a := <-done:
		return a.text, a.err
	case <-time.After(d):
		return "", fmt.Errorf("call %s wedged: it did not return within %s", name, d)
	}
}

// After the pipe closed, the next call starts a new process instead of
// failing against the old one.
func TestClosedPipeRestarts(t *testing.T) {
	h := hostileHost(t, nil)
	if _, err := call(t, h, "@fixture/hostile/closepipe", ""); err == nil {
		t.Fatal("closepipe succeeded")
	}
	if got, err := callWithin(t, h, 10*time.Second, "@fixture/hostile/echo", `{"text":"back"}`); err != nil || got != "back" {
		t.Fatalf("next call: %q %v", got, err)
	}
}

// A CPU-bound tool and a concurrent 200 KB argument (the pipe to the
// runner fills): both calls time out on time.
func TestTimeoutWithFullPipe(t *testing.T) {
	h := hostileHost(t, nil)
	if _, err := call(t, h, "@fixture/hostile/echo", `{"text":"warm"}`); err != nil {
		t.Fatal(err)
	}
	spun := make(chan error, 1)
	go func() {
		_, err := callWithin(t, h, 8*time.Second, "@fixture/hostile/spin", "")
		spun <- err
	}()
	big := `{"text":"` + strings.Repeat("a", 200<<10) + `"}`
	_, err := callWithin(t, h, 8*time.Second, "@fixture/hostile/echo", big)
	// The echo times out, or fails when the spin's timeout kills the process.
	var te *TimeoutError
	var xe *ExitError
	if !errors.As(err, &te) && !errors.As(err, &xe) {
		t.Fatalf("echo: %v", err)
	}
	if err := <-spun; !errors.As(err, &te) {
		t.Fatalf("spin: %v", err)
	}
}

// 20,000 forged requests, then a blocked event loop: the host's replies
// fill the pipe, and the call still times out on time; the next call
// gets a fresh process.
func TestTimeoutAfterForgedFrames(t *testing.T) {
	h := hostileHost(t, nil)
	_, err := callWithin(t, h, 12*time.Second, "@fixture/hostile/forge", `{"n":20000,"ms":60000}`)
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("forge: %v", err)
	}
	if got, err := callWithin(t, h, 10*time.Second, "@fixture/hostile/echo", `{"text":"back"}`); err != nil || got != "back" {
		t.Fatalf("next call: %q %v", got, err)
	}
}

// A line over the 64 MiB cap fails the call with a ProtocolError, and the
// extension restarts on its next use.
func TestOversizeFrame(t *testing.T) {
	h := hostileHost(t, func(o *Options) { o.CallTimeout = 20 * time.Second })
	_, err := callWithin(t, h, 30*time.Second, "@fixture/hostile/rawbig", `{"n":68157440}`)
	var pe *ProtocolError
	if !errors.As(err, &pe) || !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("rawbig: %v", err)
	}
	if got, err := callWithin(t, h, 10*time.Second, "@fixture/hostile/echo", `{"text":"back"}`); err != nil || got != "back" {
		t.Fatalf("next call: %q %v", got, err)
	}
	// A result over the cap that goes through the runner is refused there:
	// the call fails, the extension stays usable.
	_, err = callWithin(t, h, 30*time.Second, "@fixture/hostile/big", `{"n":67108864}`)
	var tool *ToolError
	if !errors.As(err, &tool) || !strings.Contains(tool.Message, "larger than the 64 MiB") {
		t.Fatalf("big: %v", err)
	}
}

// 200,000 request frames from one extension are served at most
// maxInflight at a time (the rest are refused), so the host's goroutines
// stay bounded; the host's heap stays bounded through the flood and a
// 60 MB result. The figures are logged (go test -run TestFloodBounded -v).
func TestFloodBounded(t *testing.T) {
	h := hostileHost(t, func(o *Options) { o.CallTimeout = 60 * time.Second })
	if _, err := call(t, h, "@fixture/hostile/echo", `{"text":"warm"}`); err != nil {
		t.Fatal(err)
	}
	// Return what earlier tests left to the OS and reset the peak RSS
	// (VmHWM), so they do not count.
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	base := runtime.NumGoroutine()
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if n := int64(runtime.NumGoroutine()); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	got, err := callWithin(t, h, 90*time.Second, "@fixture/hostile/requests", `{"n":200000}`)
	close(stop)
	<-sampled
	if err != nil || got != "sent" {
		t.Fatalf("requests: %q %v", got, err)
	}
	if extra := peak.Load() - int64(base); extra > maxInflight+16 {
		t.Errorf("%d goroutines over the base of %d during the flood, want at most %d", extra, base, maxInflight+16)
	}
	heapFlood, rssFlood := liveHeap(), procStatus("VmHWM")
	res, err := h.Call(t.Context(), CallRequest{Name: "@fixture/hostile/big", Arguments: json.RawMessage(`{"n":60000000}`)})
	if err != nil || len(res.Text) != 60000000 {
		t.Fatalf("big: %v", err)
	}
	res = nil
	heapBig, peakBig := liveHeap(), procStatus("VmHWM")
	debug.FreeOSMemory()
	t.Logf("goroutines: base %d, peak %d; after 200,000 frames: live heap %d MiB, peak RSS %s; after a 60 MB result: live heap %d MiB, peak RSS %s, RSS once the result is dropped %s",
		base, peak.Load(), heapFlood>>20, rssFlood, heapBig>>20, peakBig, procStatus("VmRSS"))
	if heapFlood > 150<<20 || heapBig > 150<<20 {
		t.Errorf("live heap %d / %d MiB, want below 150 MiB", heapFlood>>20, heapBig>>20)
	}
	if kb := kilobytes(peakBig); !raceEnabled && kb > 176<<10 {
		t.Errorf("peak RSS %s, want below 176 MiB", peakBig)
	}
}

// kilobytes parses "123 kB" (0 when it cannot).
func kilobytes(s string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(s, " kB"))
	return n
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// procStatus is a line of /proc/self/status, such as VmHWM (peak RSS) or
// VmRSS ("" where there is none).
func procStatus(name string) string {
	b, _ := os.ReadFile("/proc/self/status")
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
