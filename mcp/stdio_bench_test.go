package mcp

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/paths"
)

// BenchmarkStdioCalls measures warm tools/call over the stdio transport
// (NewStdioTransport over OS pipes, the SDK client on the other ends), 4,000
// calls sequentially and 4,000 from 8 concurrent callers, and reports the
// rates and the sequential p50: with the default collector settings, and
// with TuneGC as mcp serve runs.
func BenchmarkStdioCalls(b *testing.B) {
	b.Run("gc=default", benchStdioCalls)
	b.Run("gc=tuned", func(b *testing.B) {
		defer TuneGC()()
		benchStdioCalls(b)
	})
}

func benchStdioCalls(b *testing.B) {
	p := paths.New(b.TempDir(), paths.HostCLI)
	installFixture(b, p, "late-ext")
	h := testHost(b, p, 10*time.Second)
	s, err := New(Options{Host: h, PollInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, NewStdioTransport(inR, outW, nil)) }()
	// The client reads lines as the server does: only the server is timed.
	cs, err := testClient(nil).Connect(ctx, NewStdioTransport(outR, inW, nil), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cs.Close()
		cancel()
		inW.Close()
		<-done
		inR.Close()
		outW.Close()
		outR.Close()
	})
	name := exthost.BaseInvocationName(lateID, "ping")
	call := func() {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
	call()
	const calls = 4000
	lat := make([]time.Duration, calls)
	var seq, par time.Duration
	for b.Loop() {
		start := time.Now()
		for i := range calls {
			t0 := time.Now()
			call()
			lat[i] = time.Since(t0)
		}
		seq += time.Since(start)

		const callers = 8
		start = time.Now()
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				for range calls / callers {
					call()
				}
			})
		}
		wg.Wait()
		par += time.Since(start)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[calls/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(calls*b.N)/seq.Seconds(), "calls/s")
	b.ReportMetric(float64(calls*b.N)/par.Seconds(), "8-callers-calls/s")
}
