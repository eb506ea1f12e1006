package mcp

import (
	goruntime "runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The SDK decodes a message, its params and its _meta each with a fresh
// JSON decoder over the bytes (its internal/json.Unmarshal). With the
// patched decoder of third_party/segmentio-encoding a decoder's first
// buffer fits the message instead of always taking 32 KiB: decoding a
// tools/call line (two such passes in jsonrpc.DecodeMessage) allocates a
// few KiB, not 64 KiB.
func TestSDKDecoderBufferFitsTheMessage(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"extension__my_ext__echo__99f4e472","arguments":{"text":"hello"}}}`)
	const n = 500
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	for range n {
		if _, err := jsonrpc.DecodeMessage(line); err != nil {
			t.Fatal(err)
		}
	}
	goruntime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 16<<10 {
		t.Fatalf("decoding one message allocates %d bytes, want at most 16 KiB", per)
	}
}
