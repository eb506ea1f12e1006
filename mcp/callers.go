package mcp

import (
	"context"

	"github.com/spiritagents/spirit/exthost"
)

// hostCallers is how many long-lived goroutines run host calls.
const hostCallers = 16

// callers runs host calls on long-lived goroutines. The SDK handles each
// request on a new goroutine, whose stack starts small: the host call
// under it (argument check, encoding, the reply's decoding) grew that
// stack two or three times a call, each growth copying the frames of the
// whole SDK chain above it (about a tenth of the server's CPU in a run of
// calls). A caller's stack stays grown between calls. When every caller is
// busy the work runs on a goroutine of its own (call: the request's), so a
// slow tool never queues another.
type callers struct {
	work chan func()
}

// startCallers starts the callers; they stop when life ends.
func startCallers(life context.Context) *callers {
	c := &callers{work: make(chan func())}
	for range hostCallers {
		go func() {
			for {
				select {
				case <-life.Done():
					return
				case fn := <-c.work:
					fn()
				}
			}
		}()
	}
	return c
}

// call runs h.Call(ctx, req) on an idle caller, or here when none is idle.
func (c *callers) call(ctx context.Context, h *exthost.Host, req exthost.CallRequest) (*exthost.Result, error) {
	var res *exthost.Result
	var err error
	done := make(chan struct{})
	select {
	case c.work <- func() { res, err = h.Call(ctx, req); close(done) }:
		<-done
		return res, err
	default:
		return h.Call(ctx, req)
	}
}

// start runs fn on an idle caller, or on a new goroutine when none is idle;
// it does not wait for fn.
func (c *callers) start(fn func()) {
	select {
	case c.work <- fn:
	default:
		go fn()
	}
}
