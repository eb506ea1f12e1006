package cli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/paths"
)

// mcpFactory is a Factory over a temp data dir holding the MCP tools fixture.
func mcpFactory(t *testing.T) (*Factory, *paths.Paths, *iostreamsBufs) {
	t.Helper()
	data := t.TempDir()
	p := paths.New(data, paths.HostCLI)
	if err := os.CopyFS(p.PackageDir("@fixture/mcp-tools"), os.DirFS(filepath.Join("..", "..", "testdata", "mcp", "tools-ext"))); err != nil {
		t.Fatal(err)
	}
	ios, in, out, errOut := iostreams.Test()
	env := map[string]string{"SPIRIT_AGENT_DATA_DIR": data, "PATH": os.Getenv("PATH")}
	f := &Factory{IO: ios, Getenv: func(k string) string { return env[k] }, Now: time.Now}
	return f, p, &iostreamsBufs{in, out, errOut}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// serveHTTP runs `mcp serve` over HTTP with opts until the test ends and
// returns the address it listens on; stopping must end it cleanly.
func serveHTTP(t *testing.T, opts *MCPServeOptions, bufs *iostreamsBufs) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	opts.ready = func(addr string) { ready <- addr }
	go func() { done <- runMCPServe(ctx, opts) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("runMCPServe: %v\nstderr: %s", err, bufs.err)
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not start listening")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("runMCPServe: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("the server did not stop")
		}
	})
	return addr
}

func TestRunMCPServeHTTP(t *testing.T) {
	f, p, bufs := mcpFactory(t)
	addr := serveHTTP(t, &MCPServeOptions{IO: f.IO, Paths: f.Paths, Getenv: f.Getenv, Transport: transportHTTP, Listen: "127.0.0.1:0", Timeout: 10 * time.Second}, bufs)

	data, err := os.ReadFile(p.MCPTokenFile())
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p.MCPTokenFile()); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	token := strings.TrimSpace(string(data))
	url := "http://" + addr + "/mcp"
	if want := "spirit: MCP server at " + url + "\nspirit: bearer token in " + p.MCPTokenFile() + "\n"; bufs.err.String() != want {
		t.Errorf("stderr = %q, want %q", bufs.err.String(), want)
	}

	client := sdk.NewClient(&sdk.Implementation{Name: "cli-test", Version: "1"}, nil)
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token}}}
	cs, err := client.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{
		Name: exthost.BaseInvocationName("@fixture/mcp-tools", "echo"), Arguments: map[string]any{"text": "over http"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*sdk.TextContent).Text; res.IsError || got != "over http" {
		t.Errorf("echo = %v %q", res.IsError, got)
	}
	if bufs.out.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", bufs.out)
	}
}

func TestMCPServeFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(*testing.T, *MCPServeOptions)
	}{
		{name: "defaults", check: func(t *testing.T, o *MCPServeOptions) {
			if o.Transport != "stdio" || o.Listen != "127.0.0.1:7077" || o.Timeout != exthost.DefaultCallTimeout || o.Yes {
				t.Errorf("options = %+v", o)
			}
		}},
		{name: "http", args: []string{"--transport", "http", "--listen", "[::1]:9000", "--timeout", "5s", "--yes"},
			check: func(t *testing.T, o *MCPServeOptions) {
				if o.Transport != "http" || o.Listen != "[::1]:9000" || o.Timeout != 5*time.Second || !o.Yes {
					t.Errorf("options = %+v", o)
				}
			}},
		{name: "bad transport", args: []string{"--transport", "sse"}, wantErr: `unknown transport "sse"`},
		{name: "public listen", args: []string{"--transport", "http", "--listen", "10.0.0.1:80"}, wantErr: "loopback"},
		{name: "listen without http", args: []string{"--listen", "127.0.0.1:1"}, wantErr: "--listen needs --transport http"},
		{name: "argument", args: []string{"extra"}, wantErr: "unknown command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, _, _ := mcpFactory(t)
			var got *MCPServeOptions
			cmd := newCmdMCPServe(f, func(o *MCPServeOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			cmd.SetOut(f.IO.Out)
			cmd.SetErr(f.IO.ErrOut)
			err := cmd.Execute()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, got)
		})
	}
}

// Typed at a terminal, `mcp serve` says what it is waiting for; an agent
// that pipes its stdin sees nothing on stderr.
func TestMCPServeSaysItWaitsAtATerminal(t *testing.T) {
	for _, tty := range []bool{true, false} {
		f, _, bufs := mcpFactory(t)
		f.IO.SetTTY(tty)
		if code := Run(t.Context(), f, []string{"mcp", "serve"}); code != ExitOK {
			t.Fatalf("tty %v: exit %d: %s", tty, code, bufs.err)
		}
		said := strings.Contains(bufs.err.String(), "speaks MCP on stdin/stdout")
		if said != tty {
			t.Errorf("tty %v: stderr %q", tty, bufs.err.String())
		}
	}
}
