package mcp

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/paths"
)

// BenchmarkCall measures one warm tools/call of a trivial extension tool:
// straight through exthost.Host (the baseline), and through the MCP server
// over the in-memory transport and over streamable HTTP. The difference is
// what the MCP layer costs.
func BenchmarkCall(b *testing.B) {
	p := paths.New(b.TempDir(), paths.HostCLI)
	installFixture(b, p, "late-ext") // no event listeners: only the call is timed
	h := testHost(b, p, 10*time.Second)
	s, err := New(Options{Host: h, PollInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	name := exthost.BaseInvocationName(lateID, "ping")
	args := map[string]any{}
	raw, _ := json.Marshal(args)
	ctx := context.Background()

	b.Run("host", func(b *testing.B) {
		for b.Loop() {
			if _, err := h.Call(ctx, exthost.CallRequest{Name: name, Arguments: raw}); err != nil {
				b.Fatal(err)
			}
		}
	})
	bench := func(b *testing.B, cs *sdk.ClientSession) {
		for b.Loop() {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	}
	b.Run("mcp-memory", func(b *testing.B) {
		st, ct := sdk.NewInMemoryTransports()
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() { _ = s.Run(rctx, st) }()
		cs, err := testClient(nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		bench(b, cs)
	})
	b.Run("mcp-http", func(b *testing.B) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		hctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- s.ServeHTTP(hctx, ln, "bench-token") }()
		defer func() { cancel(); <-done }()
		tr := &sdk.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + Path,
			HTTPClient: &http.Client{Transport: bearer{"bench-token", http.DefaultTransport}}}
		cs, err := testClient(nil).Connect(ctx, tr, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		bench(b, cs)
	})
}
