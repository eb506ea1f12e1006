package mcp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the HTTP transport serves MCP (streamable HTTP).
const Path = "/mcp"

// DefaultListen is the default address of the HTTP transport.
const DefaultListen = "127.0.0.1:7077"

// ErrNotLoopback says an HTTP listen address is not a loopback address.
var ErrNotLoopback = errors.New("the MCP HTTP transport listens on loopback addresses only")

// CheckListen returns addr with "localhost" replaced by 127.0.0.1, or an
// error wrapping ErrNotLoopback when its host is not a loopback IP.
func CheckListen(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("invalid listen address %q: %w", addr, err)
	}
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", fmt.Errorf("%w: %q is not one (use 127.0.0.1:PORT or [::1]:PORT)", ErrNotLoopback, addr)
	}
	return net.JoinHostPort(host, port), nil
}

// EnsureToken returns the bearer token stored in file, creating the file
// with a new random token (mode 0600, its directory 0700) when it is missing.
// A token file readable by others is made private again.
func EnsureToken(file string) (string, error) {
	for range 2 {
		data, err := os.ReadFile(file)
		if err == nil {
			tok := strings.TrimSpace(string(data))
			if tok == "" {
				return "", fmt.Errorf("the MCP token file %s is empty: delete it to have a new token made", file)
			}
			if fi, err := os.Stat(file); err == nil && fi.Mode().Perm()&0o077 != 0 {
				if err := os.Chmod(file, 0o600); err != nil {
					return "", fmt.Errorf("making the MCP token file private: %w", err)
				}
			}
			return tok, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("reading the MCP token: %w", err)
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return "", fmt.Errorf("creating the MCP token: %w", err)
		}
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		tok := hex.EncodeToString(b)
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue // made by another process meanwhile: read it
		}
		if err != nil {
			return "", fmt.Errorf("creating the MCP token: %w", err)
		}
		_, werr := f.WriteString(tok + "\n")
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			_ = os.Remove(file)
			return "", fmt.Errorf("writing the MCP token: %w", werr)
		}
		return tok, nil
	}
	return "", fmt.Errorf("cannot read or create the MCP token file %s", file)
}

// Handler returns the streamable HTTP handler of s at Path, which answers
// 401 to any request without "Authorization: Bearer <token>".
func (s *Server) Handler(token string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv },
		&sdk.StreamableHTTPOptions{SessionTimeout: s.opts.SessionTimeout})
	want := []byte("Bearer " + token)
	mux := http.NewServeMux()
	mux.Handle(Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if token == "" || subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="spirit"`)
			http.Error(w, "missing or wrong bearer token: use the token in mcp.token of the Spirit Agent data directory", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	return mux
}

// ServeHTTP serves s on ln with token until ctx ends, then shuts down,
// giving open requests a few seconds. ln must listen on a loopback address.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, token string) error {
	if _, err := CheckListen(ln.Addr().String()); err != nil {
		return err
	}
	if token == "" {
		return errors.New("the MCP HTTP transport needs a bearer token")
	}
	hs := &http.Server{Handler: s.Handler(token), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
