package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/internal/testutil/fixture"
	"github.com/spiritagents/spirit/paths"
)

// Fixture ids and the invocation names their tools get.
const (
	toolsID = "@fixture/mcp-tools"
	lateID  = "@fixture/mcp-late"
)

func toolName(tool string) string { return exthost.BaseInvocationName(toolsID, tool) }

// installFixture copies testdata/mcp/<dir> into p as
// extensions/<host>/pkg-<b64url(id)>, the layout install.List reads.
func installFixture(t testing.TB, p *paths.Paths, dir string) string {
	t.Helper()
	return fixture.Install(t, p, filepath.Join("..", "testdata", "mcp", dir))
}

// keyringEnv is the environment of the file keyring the tests use.
var keyringEnv = map[string]string{"SPIRIT_KEYRING_BACKEND": "file", "SPIRIT_KEYRING_PASSWORD": "test-password"}

func testGetenv(k string) string {
	if v, ok := keyringEnv[k]; ok {
		return v
	}
	return os.Getenv(k)
}

// testHost returns a runtime host over p with short timeouts and a file
// keyring, closed at the end of the test.
func testHost(t testing.TB, p *paths.Paths, callTimeout time.Duration) *exthost.Host {
	t.Helper()
	dir := filepath.Join(p.DataDir, "spirit-keyring")
	h, err := exthost.New(exthost.Options{
		Paths:  p,
		Getenv: testGetenv,
		Secrets: exthost.NewSecrets(func() (exthost.SecretStore, error) {
			store, _, err := exthost.OpenSecretStore(exthost.SecretStoreConfig{Getenv: testGetenv, FileDir: dir})
			return store, err
		}),
		ActivateTimeout: 5 * time.Second,
		CallTimeout:     callTimeout,
		DisposeTimeout:  time.Second,
		KillGrace:       time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}

// warnings collects what a Server reports.
type warnings struct {
	mu   sync.Mutex
	errs []error
}

func (w *warnings) Warn(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.errs = append(w.errs, err)
}

func (w *warnings) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var s []string
	for _, e := range w.errs {
		s = append(s, e.Error())
	}
	return strings.Join(s, "\n")
}

// env is one server under test and how to reach it.
type env struct {
	p    *paths.Paths
	host *exthost.Host // nil for the real binary
	srv  *Server       // nil for the real binary
	warn *warnings
	// connect opens a client session, closed at the end of the test.
	connect func(t *testing.T, opts *sdk.ClientOptions) *sdk.ClientSession
}

// serverOptions tweak a test server.
type serverOptions struct {
	callTimeout    time.Duration
	approve        bool
	sessionTimeout time.Duration
}

func newServer(t *testing.T, p *paths.Paths, so serverOptions) (*Server, *exthost.Host, *warnings) {
	t.Helper()
	if so.callTimeout == 0 {
		so.callTimeout = 10 * time.Second
	}
	h := testHost(t, p, so.callTimeout)
	w := &warnings{}
	s, err := New(Options{Host: h, Approve: so.approve, PollInterval: 50 * time.Millisecond, Reporter: w, WorkspaceRoot: "/work/root",
		SessionTimeout: so.sessionTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, h, w
}

func clientOptions(opts *sdk.ClientOptions) *sdk.ClientOptions {
	if opts == nil {
		opts = &sdk.ClientOptions{}
	}
	return opts
}

func testClient(opts *sdk.ClientOptions) *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "v1"}, clientOptions(opts))
}

// memoryEnv serves over the SDK's in-memory transport, one server run per
// client session.
func memoryEnv(t *testing.T, so serverOptions) *env {
	p := paths.New(t.TempDir(), paths.HostCLI)
	installFixture(t, p, "tools-ext")
	s, h, w := newServer(t, p, so)
	e := &env{p: p, host: h, srv: s, warn: w}
	e.connect = func(t *testing.T, opts *sdk.ClientOptions) *sdk.ClientSession {
		t.Helper()
		st, ct := sdk.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx, st) }()
		cs, err := testClient(opts).Connect(ctx, ct, nil)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cs.Close()
			cancel()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Error("the server session did not end")
			}
		})
		return cs
	}
	return e
}

// bearer adds the Authorization header.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// httpEnv serves over streamable HTTP on a loopback port with a token.
func httpEnv(t *testing.T, so serverOptions) *env {
	p := paths.New(t.TempDir(), paths.HostCLI)
	installFixture(t, p, "tools-ext")
	s, h, w := newServer(t, p, so)
	token, err := EnsureToken(p.MCPTokenFile())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, ln, token) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeHTTP: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("the HTTP server did not stop")
		}
	})
	url := "http://" + ln.Addr().String() + Path
	e := &env{p: p, host: h, srv: s, warn: w}
	e.connect = func(t *testing.T, opts *sdk.ClientOptions) *sdk.ClientSession {
		t.Helper()
		tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
		cs, err := testClient(opts).Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	return e
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

// spiritBinary builds cmd/spirit once per test process.
func spiritBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "spirit-mcp-test-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "spirit")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/spiritagents/spirit/cmd/spirit").CombinedOutput()
		if err != nil {
			binErr = &buildError{err, string(out)}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }

// binaryEnv runs `spirit mcp serve` over stdio, one process per session.
func binaryEnv(t *testing.T) *env {
	bin := spiritBinary(t)
	p := paths.New(t.TempDir(), paths.HostCLI)
	installFixture(t, p, "tools-ext")
	e := &env{p: p}
	e.connect = func(t *testing.T, opts *sdk.ClientOptions) *sdk.ClientSession {
		t.Helper()
		cmd := exec.Command(bin, "mcp", "serve", "--timeout", "10s")
		cmd.Env = append(os.Environ(), "SPIRIT_AGENT_DATA_DIR="+p.DataDir, "SPIRIT_HOST=cli",
			"SPIRIT_KEYRING_BACKEND=file", "SPIRIT_KEYRING_PASSWORD=test-password")
		cmd.Stderr = &lockedBuffer{}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cs, err := testClient(opts).Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
		if err != nil {
			cancel()
			t.Fatalf("%v\nstderr: %s", err, cmd.Stderr)
		}
		t.Cleanup(func() {
			if err := cs.Close(); err != nil {
				t.Logf("closing the spirit process: %v", err)
			}
			cancel()
			if s := cmd.Stderr.(*lockedBuffer).String(); s != "" {
				t.Logf("spirit stderr:\n%s", s)
			}
		})
		return cs
	}
	return e
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// text is the text content of a result.
func text(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	var s []string
	for _, c := range res.Content {
		tc, ok := c.(*sdk.TextContent)
		if !ok {
			t.Fatalf("content %T, want text", c)
		}
		s = append(s, tc.Text)
	}
	return strings.Join(s, "")
}

// call calls tool (a manifest tool name of the tools fixture) with args.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: toolName(tool), Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", tool, err)
	}
	return res
}

// waitFor polls cond every 50 ms for at most d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fixtureState is what the state tool of the tools fixture returns.
type fixtureState struct {
	Aborted int `json:"aborted"`
	Events  []struct {
		Type        string `json:"type"`
		ToolName    string `json:"toolName"`
		Failed      *bool  `json:"failed"`
		Output      string `json:"output"`
		DisplayName string `json:"displayName"`
	} `json:"events"`
}

func state(t *testing.T, cs *sdk.ClientSession) fixtureState {
	t.Helper()
	res := call(t, cs, "state", map[string]any{})
	var st fixtureState
	if err := json.Unmarshal([]byte(text(t, res)), &st); err != nil {
		t.Fatalf("state: %v in %q", err, text(t, res))
	}
	return st
}

// startPiped starts cmd with pipes to its stdin and from its stdout.
func startPiped(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}
