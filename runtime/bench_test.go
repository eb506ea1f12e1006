package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkWarmCall times warm round trips through Host.Call (argument
// validation, JSON-RPC over the pipes, the handler, result rendering) to
// an already running extension, 10,000 calls per run, and reports the
// median and p99 latency, the sequential call rate, and the rate with 8
// concurrent callers.
func BenchmarkWarmCall(b *testing.B) {
	p := installFixtures(b, "kitchen")
	h := newTestHost(b, p, nil)
	ctx := context.Background()
	req := CallRequest{Name: "@fixture/kitchen/echo", Arguments: json.RawMessage(`{"text":"x"}`)}
	if _, err := h.Call(ctx, req); err != nil {
		b.Fatal(err)
	}
	const calls = 10000
	lat := make([]time.Duration, calls)
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		for i := range calls {
			t0 := time.Now()
			if _, err := h.Call(ctx, req); err != nil {
				b.Fatal(err)
			}
			lat[i] = time.Since(t0)
		}
		total += time.Since(start)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[calls/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[calls*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(calls*b.N)/total.Seconds(), "calls/s")

	// The same 10,000 calls from 8 concurrent callers: one extension
	// process serves them all.
	const callers = 8
	start := time.Now()
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for range calls / callers {
				if _, err := h.Call(ctx, req); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(calls/time.Since(start).Seconds(), "parallel-calls/s")
}
