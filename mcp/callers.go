package mcp

import (
	"context"

	"github.com/spiritagents/spirit/exthost"
)

// hostCallers is how many long-lived goroutines run host calls.
const hostCallers = 16

// hostCall is one exthost.Host call handed to a caller goroutine.
type hostCall struct {
	ctx  context.Context
	req  exthost.CallRequest
	res  *exthost.Result
	err  error
	done chan struct{}
}

// callers runs host calls on long-lived goroutines. The SDK handles each
// request on a new goroutine, whose stack starts small: the host call
// under it (argument check, encoding, the reply's decoding) grew that
// stack two or three times a call, each growth copying the frames of the
// whole SDK chain above it (about a tenth of the server's CPU in a run of
// calls). A caller's stack stays grown between calls. When every caller is
// busy the call runs on the request's own goroutine, so a slow tool never
// queues another.
type callers struct {
	work chan *hostCall
}

// startCallers starts the callers; they stop when life ends.
func startCallers(life context.Context, h *exthost.Host) *callers {
	c := &callers{work: make(chan *hostCall)}
	for range hostCallers {
		go func() {
			for {
				select {
				case <-life.Done():
					return
				case hc := <-c.work:
					hc.res, hc.err = h.Call(hc.ctx, hc.req)
					close(hc.done)
				}
			}
		}()
	}
	return c
}

// call runs h.Call(ctx, req) on an idle caller, or here when none is idle.
func (c *callers) call(ctx context.Context, h *exthost.Host, req exthost.CallRequest) (*exthost.Result, error) {
	hc := &hostCall{ctx: ctx, req: req, done: make(chan struct{})}
	select {
	case c.work <- hc:
		<-hc.done
		return hc.res, hc.err
	default:
		return h.Call(ctx, req)
	}
}
