package mcp

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The stdio transport's own work for one request is reading its line and
// building the request from the frame check's decoding pass (parseFrame):
// frameFilter.next. That is measured here, on its own, so the budget holds
// spirit's code and nothing of the SDK (its connection, its params decoding
// after the transport). A ~150-byte tools/call line costs about a kilobyte
// of garbage; the budgets leave room and fail on anything that scales with
// a buffer instead of the line (a 32 KiB decoder buffer per message).
func TestFrameFilterAllocatesLittlePerRequest(t *testing.T) {
	line := `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"extension__my_ext__echo__99f4e472","arguments":{"text":"hello"}}}` + "\n"
	const n = 1000
	f := &frameFilter{src: nil, unpoll: func() error { return nil },
		r: bufio.NewReaderSize(bytes.NewReader(bytes.Repeat([]byte(line), n+1)), 64<<10), out: io.Discard}
	read := func() {
		msg, err := f.next()
		if err != nil {
			t.Fatal(err)
		}
		if req, ok := msg.(*jsonrpc.Request); !ok || req.Method != "tools/call" {
			t.Fatalf("read %#v, want the tools/call request", msg)
		}
	}
	read() // the first read fills the reader's buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n - 1 {
		read()
	}
	runtime.ReadMemStats(&after)
	bytesPer := (after.TotalAlloc - before.TotalAlloc) / (n - 1)
	allocsPer := (after.Mallocs - before.Mallocs) / (n - 1)
	t.Logf("frameFilter.next: %d bytes, %d allocations per request", bytesPer, allocsPer)
	if bytesPer > 4<<10 {
		t.Errorf("reading one tools/call request allocates %d bytes, want at most 4 KiB", bytesPer)
	}
	if allocsPer > 48 {
		t.Errorf("reading one tools/call request makes %d allocations, want at most 48", allocsPer)
	}
}
