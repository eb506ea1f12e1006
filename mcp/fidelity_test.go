package mcp

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/paths"
)

// TestSchemaBytesOverStdio reads tools/list as the real binary writes it:
// the inputSchema has the key order of package.json (as the apps pass it
// on), not the sorted keys of a re-encoded map.
func TestSchemaBytesOverStdio(t *testing.T) {
	bin := spiritBinary(t)
	p := paths.New(t.TempDir(), paths.HostCLI)
	installFixture(t, p, "tools-ext")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "mcp", "serve")
	cmd.Env = append(os.Environ(), "SPIRIT_AGENT_DATA_DIR="+p.DataDir, "SPIRIT_HOST=cli",
		"SPIRIT_KEYRING_BACKEND=file", "SPIRIT_KEYRING_PASSWORD=test-password")
	stdin, stdout := startPiped(t, cmd)
	defer func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	send := func(msg string) {
		if _, err := stdin.Write([]byte(msg + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	// read returns the response with the given id, skipping notifications.
	read := func(id string) string {
		for lines.Scan() {
			if strings.Contains(lines.Text(), `"id":`+id+`,`) {
				return lines.Text()
			}
		}
		t.Fatalf("no response %s: %v", id, lines.Err())
		return ""
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	read("1")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	list := read("2")
	if want := `"inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`; !strings.Contains(list, want) {
		t.Errorf("tools/list does not carry %s:\n%s", want, list)
	}
}

// TestErrorTextIsTheApps: a failed tools/call carries the apps' text, byte
// for byte: the thrown message, the settings errors, "did not return a
// callable instance", an activation's "Failed to execute extension" without
// the place in the package.
func TestErrorTextIsTheApps(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	for _, dir := range []string{"errors-ext", "errors-default-obj", "errors-activate"} {
		installFixture(t, p, dir)
	}
	s, _, _ := newServer(t, p, serverOptions{})
	st, ct := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	cs, err := testClient(nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cs.Close()
		cancel()
		<-done
	}()
	for _, c := range []struct{ id, tool, want string }{
		{"@fixture/errors", "throws", "tool failed: bad input"},
		{"@fixture/errors", "set-type", "Extension setting greeting must be a string."},
		{"@fixture/errors", "set-option", "Extension setting color has an invalid value: nope"},
		{"@fixture/errors", "set-undeclared", "The extension does not declare the setting: undeclared"},
		{"@fixture/errors", "clear-required", "Extension setting greeting is required and cannot be cleared."},
		{"@fixture/fidelity-default-obj", "hello", "The extension did not return a callable instance: Default Object"},
		{"@fixture/errors-activate", "hello", "Failed to execute extension: Activate Throws (boom)"},
	} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: exthost.BaseInvocationName(c.id, c.tool), Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("%s/%s: %v", c.id, c.tool, err)
		}
		if got := text(t, res); !res.IsError || got != c.want {
			t.Errorf("%s/%s: isError %v, text %q\nwant the apps' %q", c.id, c.tool, res.IsError, got, c.want)
		}
	}
}

// TestInstalledWarnings: an installed extension that breaks only a strict
// rule of spirit's (a select without options) is served, as the apps serve
// it, and the server warns about it once.
func TestInstalledWarnings(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	installFixture(t, p, "strict-installed")
	s, _, w := newServer(t, p, serverOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for range 2 {
		if err := s.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	name := exthost.BaseInvocationName("@fixture/strict-installed", "hello")
	if _, ok := s.lookup(name); !ok {
		t.Errorf("%s is not served", name)
	}
	const want = "@fixture/strict-installed: spirit would refuse to install this: Extension setting color is a select but declares no options."
	if got := w.String(); strings.Count(got, want) != 1 {
		t.Errorf("warnings = %q, want %q once", got, want)
	}
}
