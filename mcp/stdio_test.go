package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/spiritagents/spirit/paths"
)

// malformedFrames are lines a client (or anything writing to the server's
// stdin) may send that are not one valid JSON-RPC 2.0 message. code is the
// error answered (0: no answer), id the id it carries.
var malformedFrames = []struct {
	name  string
	frame string
	code  int
	id    string
}{
	{"not JSON", `not json`, -32700, "null"},
	{"empty line", ``, 0, ""},
	{"blank line", " \t ", 0, ""},
	{"empty batch", `[]`, -32600, "null"},
	{"batch", `[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, -32600, "null"},
	{"empty object", `{}`, -32600, "null"},
	{"id an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
	{"id an array", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null"},
	{"id 1e999", `{"jsonrpc":"2.0","id":1e999,"method":"ping"}`, -32600, "null"},
	{"id a fraction", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null"},
	{"id beyond 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, "null"},
	{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null"},
	{"method not a string", `{"jsonrpc":"2.0","id":8,"method":42}`, -32600, "8"},
	{"jsonrpc missing", `{"id":9,"method":"ping"}`, -32600, "9"},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"ten","method":"ping"}`, -32600, `"ten"`},
	{"params a string", `{"jsonrpc":"2.0","id":11,"method":"ping","params":"x"}`, -32600, "11"},
	{"nesting 1001", `{"jsonrpc":"2.0","id":12,"method":"ping","params":{"a":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}}`, -32700, "null"},
	{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"p\xffing\"}", -32700, "null"},
	{"NUL byte", "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"pi\x00ng\"}", -32700, "null"},
	{"response with an unknown id", `{"jsonrpc":"2.0","id":999,"result":{}}`, 0, ""},
	{"response with result and error", `{"jsonrpc":"2.0","id":998,"result":{},"error":{"code":1,"message":"x"}}`, -32600, "null"},
	{"null", `null`, -32600, "null"},
	{"a number", `42`, -32600, "null"},
	{"a string", `"ping"`, -32600, "null"},
	{"truncated", `{"jsonrpc":"2.0","id":15,"method":"pi`, -32700, "null"},
	{"two messages on a line", `{"jsonrpc":"2.0","id":16,"method":"ping"} {"jsonrpc":"2.0","id":17,"method":"ping"}`, -32700, "null"},
}

// stdioServer is `spirit mcp serve` over stdio, spoken to line by line.
type stdioServer struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan []byte
	done  chan struct{} // closed when the process has exited, with its error in err
	err   error
}

func startStdioServer(t *testing.T) *stdioServer {
	t.Helper()
	bin := spiritBinary(t)
	p := paths.New(t.TempDir(), paths.HostCLI)
	cmd := exec.Command(bin, "mcp", "serve")
	cmd.Env = append(os.Environ(), "SPIRIT_AGENT_DATA_DIR="+p.DataDir, "SPIRIT_HOST=cli")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	in, out := startPiped(t, cmd)
	s := &stdioServer{t: t, cmd: cmd, in: in, lines: make(chan []byte, 64), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s.lines <- bytes.Clone(sc.Bytes())
		}
		close(s.lines)
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-s.done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("spirit stderr:\n%s", stderr.String())
		}
	})
	return s
}

func (s *stdioServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("writing to the server: %v", err)
	}
}

// next returns the next line the server writes.
func (s *stdioServer) next() map[string]json.RawMessage {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			<-s.done
			s.t.Fatalf("the server closed its output: %v", s.err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			s.t.Fatalf("the server wrote %q: %v", line, err)
		}
		return m
	case <-time.After(20 * time.Second):
		s.t.Fatal("no answer from the server in 20s")
	}
	return nil
}

// ping sends a ping with id and returns the lines written before its
// answer.
func (s *stdioServer) ping(id int) []map[string]json.RawMessage {
	s.t.Helper()
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	var before []map[string]json.RawMessage
	for {
		m := s.next()
		if string(m["id"]) == fmt.Sprint(id) && m["result"] != nil {
			return before
		}
		before = append(before, m)
	}
}

func errorCode(m map[string]json.RawMessage) int {
	var e struct{ Code int }
	json.Unmarshal(m["error"], &e)
	return e.Code
}

// TestStdioMalformedFrames sends each malformed frame to the real binary
// over stdio and checks that the server answers it with the JSON-RPC
// error (or ignores it, for blank lines and stray responses) and still
// answers the ping that follows, so one bad line does not end the session.
func TestStdioMalformedFrames(t *testing.T) {
	t.Parallel()
	s := startStdioServer(t)
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := s.next(); string(m["id"]) != "0" || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	for i, tt := range malformedFrames {
		s.send(tt.frame)
		got := s.ping(1000 + i)
		switch {
		case tt.code == 0 && len(got) != 0:
			t.Errorf("%s: answered %v, want nothing", tt.name, got)
		case tt.code != 0 && len(got) != 1:
			t.Errorf("%s: %d answers %v, want one error", tt.name, len(got), got)
		case tt.code != 0 && (errorCode(got[0]) != tt.code || string(got[0]["id"]) != tt.id):
			t.Errorf("%s: answered code %d id %s, want %d id %s", tt.name, errorCode(got[0]), got[0]["id"], tt.code, tt.id)
		}
	}

	// A line of 100 MB is skipped as it streams, not buffered, and answered.
	huge := `{"jsonrpc":"2.0","id":77,"method":"ping","params":{"pad":"` + strings.Repeat("x", 100<<20) + `"}}`
	s.send(huge)
	if got := s.ping(2000); len(got) != 1 || errorCode(got[0]) != -32700 || string(got[0]["id"]) != "null" {
		t.Errorf("100 MB line: answered %v", got)
	}

	// Good frames still work: CRLF line ends, and a request the SDK itself
	// refuses (unknown method) is answered by the SDK with its id.
	s.send("{\"jsonrpc\":\"2.0\",\"id\":3000,\"method\":\"tools/list\"}\r")
	if m := s.next(); string(m["id"]) != "3000" || m["result"] == nil {
		t.Fatalf("tools/list after the malformed frames: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","id":3001,"method":"no/such/method"}`)
	if m := s.next(); string(m["id"]) != "3001" || errorCode(m) != -32601 {
		t.Fatalf("unknown method: %v", m)
	}

	s.in.Close()
	select {
	case <-s.done:
		if s.err != nil {
			t.Fatalf("spirit mcp serve exited with %v at the end of its input", s.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not exit at the end of its input")
	}
}

// FuzzCheckFrame: CheckFrame never panics, every frame it accepts is one
// message the SDK decodes, so an accepted frame cannot end a session, and
// the message the transport builds from it is the one the SDK's decoder
// builds.
func FuzzCheckFrame(f *testing.F) {
	for _, tt := range malformedFrames {
		f.Add([]byte(tt.frame))
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":-9007199254740991,"method":"x","params":[1]}`,
		`{"jsonrpc":"2.0","id":"\u0041\n","method":"a\"b","params":null}`,
		`{"jsonrpc":"2.0","id":1,"id":-0,"method":"x","method":"y","params":{ "a" : [ ] } }`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"no"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		id, ferr := CheckFrame(line)
		if ferr != nil {
			if id != nil && !json.Valid(id) {
				t.Fatalf("answer id %q is not JSON", id)
			}
			return
		}
		want, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			t.Fatalf("accepted %q, which the SDK refuses: %v", line, err)
		}
		got, _, ferr := parseFrame(line)
		if ferr != nil {
			t.Fatalf("CheckFrame accepted %q, parseFrame refused it: %v", line, ferr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: the transport built %#v, the SDK %#v", line, got, want)
		}
	})
}

// The transport's filter skips what it answers without losing the good
// frames around it, in one Read or many.
func TestStdioTransportInProcess(t *testing.T) {
	in := strings.NewReader("garbage\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n[]\n")
	var out bytes.Buffer
	tr := NewStdioTransport(in, &out, nil)
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	msg, err := conn.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if req, ok := msg.(*jsonrpc.Request); !ok || req.Method != "ping" {
		t.Fatalf("read %#v", msg)
	}
	if _, err := conn.Read(t.Context()); err == nil {
		t.Fatal("no end of stream")
	}
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: not one JSON value"}}` + "\n" +
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: batches are not supported"}}` + "\n"
	if out.String() != want {
		t.Fatalf("answers:\n%s\nwant:\n%s", out.String(), want)
	}
}

// The run's one context ends on SIGTERM and SIGINT: `spirit mcp serve`
// then closes its session and exits 0. The initialize answer is the
// started signal (the handler is installed before any command runs).
func TestStdioServeStopsOnSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	t.Parallel()
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			s := startStdioServer(t)
			s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
			if m := s.next(); string(m["id"]) != "0" || m["result"] == nil {
				t.Fatalf("initialize: %v", m)
			}
			if err := s.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-s.done:
				if s.err != nil {
					t.Fatalf("after %v: %v", sig, s.err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("still running 20s after %v", sig)
			}
		})
	}
}

// BenchmarkCheckFrame measures the check each stdio line pays before the
// SDK decodes it: a typical tools/call and a 1 MiB argument.
func BenchmarkCheckFrame(b *testing.B) {
	for _, bc := range []struct {
		name  string
		frame string
	}{
		{"tools-call", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"extension__my_ext__echo__99f4e472","arguments":{"text":"hello","n":[1,2,3]}}}`},
		{"1MiB", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"x","arguments":{"text":"` + strings.Repeat("x", 1<<20) + `"}}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			line := []byte(bc.frame)
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, err := CheckFrame(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Reading a tools/call line allocates a few small objects, not the SDK
// decoder's 32 KiB buffer per decoding pass (two passes a message in
// jsonrpc.DecodeMessage).
func TestStdioReadAllocation(t *testing.T) {
	const n = 2000
	line := `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"extension__my_ext__echo__99f4e472","arguments":{"text":"hello"}}}` + "\n"
	conn, err := NewStdioTransport(strings.NewReader(strings.Repeat(line, n)), io.Discard, nil).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	read := func() {
		if _, err := conn.Read(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	read() // the reader's buffer
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n - 1 {
		read()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / (n - 1); per > 8<<10 {
		t.Fatalf("reading one message allocates %d bytes, want at most 8 KiB", per)
	}
}
