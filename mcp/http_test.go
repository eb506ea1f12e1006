package mcp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/paths"
)

func TestCheckListen(t *testing.T) {
	tests := []struct {
		name, addr, want string
		loopbackErr      bool
	}{
		{name: "ipv4", addr: "127.0.0.1:7077", want: "127.0.0.1:7077"},
		{name: "ipv4 other loopback", addr: "127.0.0.2:80", want: "127.0.0.2:80"},
		{name: "ipv6", addr: "[::1]:7077", want: "[::1]:7077"},
		{name: "localhost", addr: "localhost:0", want: "127.0.0.1:0"},
		{name: "all interfaces", addr: "0.0.0.0:7077", loopbackErr: true},
		{name: "empty host", addr: ":7077", loopbackErr: true},
		{name: "ipv6 any", addr: "[::]:7077", loopbackErr: true},
		{name: "public", addr: "192.168.1.2:7077", loopbackErr: true},
		{name: "name", addr: "example.com:80", loopbackErr: true},
		{name: "no port", addr: "127.0.0.1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckListen(tc.addr)
			if tc.want != "" {
				if err != nil || got != tc.want {
					t.Errorf("CheckListen(%q) = %q, %v; want %q", tc.addr, got, err, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckListen(%q) = %q, want an error", tc.addr, got)
			}
			if errors.Is(err, ErrNotLoopback) != tc.loopbackErr {
				t.Errorf("err = %v, ErrNotLoopback %v", err, tc.loopbackErr)
			}
		})
	}
}

func TestEnsureToken(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "data", "mcp.token")
	tok, err := EnsureToken(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(tok) != 64 {
		t.Errorf("token %q, want 64 hex digits", tok)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	again, err := EnsureToken(file)
	if err != nil || again != tok {
		t.Errorf("second EnsureToken = %q, %v; want the same token", again, err)
	}

	t.Run("loose mode tightened", func(t *testing.T) {
		if err := os.Chmod(file, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := EnsureToken(file); err != nil || got != tok {
			t.Fatalf("EnsureToken = %q, %v", got, err)
		}
		if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600", fi.Mode().Perm())
		}
	})
	t.Run("user's own token", func(t *testing.T) {
		f := filepath.Join(dir, "own.token")
		if err := os.WriteFile(f, []byte("  my-token\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := EnsureToken(f); err != nil || got != "my-token" {
			t.Errorf("EnsureToken = %q, %v; want my-token", got, err)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		f := filepath.Join(dir, "empty.token")
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := EnsureToken(f); err == nil || !strings.Contains(err.Error(), "empty") {
			t.Errorf("err = %v, want an empty-file error", err)
		}
	})
}

// An HTTP session with no request for SessionTimeout is closed; its id is
// then unknown to the server.
func TestHTTPIdleSessionCloses(t *testing.T) {
	t.Parallel()
	p := paths.New(t.TempDir(), paths.HostCLI)
	installFixture(t, p, "tools-ext")
	s, _, _ := newServer(t, p, serverOptions{sessionTimeout: 300 * time.Millisecond})
	srv := httptest.NewServer(s.Handler("tok"))
	defer srv.Close()
	post := func(session, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+Path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer tok")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	const ping = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if r := post(id, ping); r.StatusCode != http.StatusOK {
		t.Fatalf("ping in the live session: %d", r.StatusCode)
	}
	time.Sleep(time.Second)
	if r := post(id, ping); r.StatusCode != http.StatusNotFound {
		t.Fatalf("ping after the idle timeout: %d, want 404", r.StatusCode)
	}
}

func TestHTTPNeedsToken(t *testing.T) {
	t.Parallel()
	p := paths.New(t.TempDir(), paths.HostCLI)
	installFixture(t, p, "tools-ext")
	s, _, _ := newServer(t, p, serverOptions{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, ln, "right-token") }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the HTTP server did not stop")
		}
	}()
	url := "http://" + ln.Addr().String()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	tests := []struct {
		name, path, auth string
		status           int
	}{
		{name: "no token", path: Path, status: http.StatusUnauthorized},
		{name: "wrong token", path: Path, auth: "Bearer wrong-token", status: http.StatusUnauthorized},
		{name: "token without Bearer", path: Path, auth: "right-token", status: http.StatusUnauthorized},
		{name: "basic", path: Path, auth: "Basic cmlnaHQtdG9rZW4=", status: http.StatusUnauthorized},
		{name: "other path", path: "/", auth: "Bearer right-token", status: http.StatusNotFound},
		{name: "right token", path: Path, auth: "Bearer right-token", status: http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, url+tc.path, strings.NewReader(init))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.status {
				t.Errorf("status %d, want %d", res.StatusCode, tc.status)
			}
			if tc.status == http.StatusUnauthorized && !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate = %q", res.Header.Get("WWW-Authenticate"))
			}
		})
	}
}

func TestServeHTTPRefuses(t *testing.T) {
	t.Parallel()
	p := paths.New(t.TempDir(), paths.HostCLI)
	s, _, _ := newServer(t, p, serverOptions{})
	t.Run("no token", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		if err := s.ServeHTTP(context.Background(), ln, ""); err == nil {
			t.Error("ServeHTTP without a token succeeded")
		}
	})
	t.Run("not loopback", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		wide := addrListener{ln, &net.TCPAddr{IP: net.IPv4zero, Port: 7077}}
		if err := s.ServeHTTP(context.Background(), wide, "tok"); !errors.Is(err, ErrNotLoopback) {
			t.Errorf("err = %v, want ErrNotLoopback", err)
		}
	})
}

// addrListener reports another address than it listens on, so the
// refusal of a non-loopback listener is tested without opening one.
type addrListener struct {
	net.Listener
	addr net.Addr
}

func (l addrListener) Addr() net.Addr { return l.addr }
