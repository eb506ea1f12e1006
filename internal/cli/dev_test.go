package cli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/internal/scaffold"
)

// TestMCPServeDevWatches serves a --dev package to a real MCP client, edits
// its code and then its manifest, and checks that the edit runs without a
// reinstall and that the manifest edit is announced with list_changed.
func TestMCPServeDevWatches(t *testing.T) {
	f, p, bufs := mcpFactory(t)
	dir := filepath.Join(t.TempDir(), "dev-ext")
	if _, err := scaffold.Write(dir, scaffold.Options{Name: "dev-ext"}); err != nil {
		t.Fatal(err)
	}
	addr := serveHTTP(t, &MCPServeOptions{IO: f.IO, Paths: f.Paths, Getenv: f.Getenv, Transport: transportHTTP, Listen: "127.0.0.1:0",
		Timeout: 20 * time.Second, Dev: []string{dir}}, bufs)
	token, err := os.ReadFile(p.MCPTokenFile())
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 8)
	client := sdk.NewClient(&sdk.Implementation{Name: "dev-test", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	tr := &sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{strings.TrimSpace(string(token))}}}
	cs, err := client.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	call := func(tool string) string {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{
			Name: exthost.BaseInvocationName("dev-ext", tool), Arguments: map[string]any{"name": "Ada"},
		})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*sdk.TextContent).Text
		if res.IsError {
			t.Fatalf("%s failed: %s", tool, text)
		}
		return text
	}
	if got := call("greet"); got != "Hello, Ada!" {
		t.Fatalf("greet = %q", got)
	}
	// The installed fixture is still served beside the --dev package.
	tools := listToolNames(t, cs)
	if !slices.Contains(tools, exthost.BaseInvocationName("@fixture/mcp-tools", "echo")) {
		t.Errorf("tools = %v, want the installed ones too", tools)
	}

	// A code edit: the next call runs the new code, no reinstall.
	edit(t, filepath.Join(dir, "index.js"), "`Hello, ${name}!`", "`Hi there, ${name}!`")
	if got := call("greet"); got != "Hi there, Ada!" {
		t.Fatalf("after the edit greet = %q", got)
	}

	// A manifest edit that adds a tool: list_changed, then the tool runs.
	edit(t, filepath.Join(dir, "index.js"), "      async greet(call) {", "      async wave(call) { return `*waves at ${call.arguments.name}*`; },\n      async greet(call) {")
	edit(t, filepath.Join(dir, "package.json"), `"tools": [`, `"tools": [
        { "name": "wave", "description": "Wave at someone.", "inputSchema": { "type": "object", "properties": { "name": { "type": "string" } } } },`)
	select {
	case <-changed:
	case <-time.After(20 * time.Second):
		t.Fatalf("no notifications/tools/list_changed after the manifest edit; stderr: %s", bufs.err)
	}
	if tools := listToolNames(t, cs); !slices.Contains(tools, exthost.BaseInvocationName("dev-ext", "wave")) {
		t.Fatalf("tools after the edit = %v", tools)
	}
	if got := call("wave"); got != "*waves at Ada*" {
		t.Fatalf("wave = %q", got)
	}
	if _, err := os.Stat(p.PackageDir("dev-ext")); !os.IsNotExist(err) {
		t.Errorf("the --dev package was written into the install tree: %v", err)
	}
}

func listToolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// edit replaces old with new in file, and moves its mtime on, so the
// change shows even on a file system with coarse timestamps.
func edit(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s has no %q", file, old)
	}
	fi, _ := os.Stat(file)
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	later := fi.ModTime().Add(2 * time.Second)
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkFingerprint measures the check made before each use of a --dev
// package, on a tree of 200 files (a large hand-written extension).
func BenchmarkFingerprint(b *testing.B) {
	dir := b.TempDir()
	for i := range 200 {
		sub := filepath.Join(dir, "src", string(rune('a'+i%20)))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "f"+strings.Repeat("x", i%7)+".js"), []byte("export {}"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		fingerprint(dir)
	}
}
