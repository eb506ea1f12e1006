package mcp

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The stdio transport builds each request from its own frame check's
// decoding pass (parseFrame), not with the SDK's decoder, whose first
// buffer is 32 KiB whatever the message's size: reading a ~150-byte
// tools/call line must stay around a kilobyte of garbage, not 32 KiB or
// more. What the SDK allocates afterwards (its params and _meta) is its own.
func TestStdioReadAllocatesLittlePerRequest(t *testing.T) {
	line := `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"extension__my_ext__echo__99f4e472","arguments":{"text":"hello"}}}` + "\n"
	const n = 1000
	conn, err := NewStdioTransport(bytes.NewReader(bytes.Repeat([]byte(line), n)), io.Discard, nil).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		msg, err := conn.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if req, ok := msg.(*jsonrpc.Request); !ok || req.Method != "tools/call" {
			t.Fatalf("read %#v, want the tools/call request", msg)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 4<<10 {
		t.Fatalf("reading one tools/call request allocates %d bytes, want at most 4 KiB", per)
	}
}
