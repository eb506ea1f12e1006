package exthost

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
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
	b.ReportMetric(float64(lat[calls/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[calls*99/100].Microseconds()), "p99-µs")
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

// echoFloor is a bare Node newline-JSON echo over fds 3 and 4: the floor
// of a round trip over the runner's pipes, with no protocol around it.
const echoFloor = `import net from 'node:net';
const input = new net.Socket({ fd: 3, readable: true, writable: false });
const output = new net.Socket({ fd: 4, readable: false, writable: true });
let rest = '';
input.on('data', (chunk) => {
  const lines = (rest + chunk).split('\n');
  rest = lines.pop();
  for (const line of lines) {
    const msg = JSON.parse(line);
    output.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { text: msg.params.arguments.text } }) + '\n');
  }
});
input.on('end', () => process.exit(0));`

// BenchmarkEchoFloor times 10,000 sequential round trips of a bare Go↔Node
// newline-JSON echo over two pipes, as the runner is connected: the floor
// BenchmarkWarmCall is compared with in the same run.
func BenchmarkEchoFloor(b *testing.B) {
	toR, toW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	node, err := findNode("", os.Getenv)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(node, "--input-type=module", "--eval", echoFloor)
	cmd.ExtraFiles = []*os.File{toR, fromW}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	toR.Close()
	fromW.Close()
	b.Cleanup(func() { toW.Close(); _ = cmd.Wait(); fromR.Close() })
	br := bufio.NewReader(fromR)
	type req struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  struct {
			ToolName  string          `json:"toolName"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	var id int64
	roundTrip := func() {
		id++
		r := req{JSONRPC: "2.0", ID: id, Method: "invokeTool"}
		r.Params.ToolName, r.Params.Arguments = "echo", json.RawMessage(`{"text":"x"}`)
		line, _ := json.Marshal(r)
		if _, err := toW.Write(append(line, '\n')); err != nil {
			b.Fatal(err)
		}
		got, err := br.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		var out struct {
			Result struct{ Text string } `json:"result"`
		}
		if err := json.Unmarshal(got, &out); err != nil || out.Result.Text != "x" {
			b.Fatalf("echo answered %q: %v", got, err)
		}
	}
	roundTrip()
	const calls = 10000
	lat := make([]time.Duration, calls)
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		for i := range calls {
			t0 := time.Now()
			roundTrip()
			lat[i] = time.Since(t0)
		}
		total += time.Since(start)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[calls/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(calls*b.N)/total.Seconds(), "calls/s")
}
