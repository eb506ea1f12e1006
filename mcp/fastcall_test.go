package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spiritagents/spirit/paths"
)

// rawSession is one stdio session driven line by line.
type rawSession struct {
	t    *testing.T
	in   io.WriteCloser
	out  *bufio.Reader
	done chan error
}

// startRaw serves one stdio session of s: through Server.Run (fast calls
// on) or through the SDK's own Run over the same transport (every message
// to the SDK).
func startRaw(t *testing.T, s *Server, fast bool) *rawSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	r := &rawSession{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		tr := NewStdioTransport(inR, outW, nil)
		if fast {
			r.done <- s.Run(ctx, tr)
		} else {
			r.done <- s.SDK().Run(ctx, tr)
		}
		outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			t.Error("the session did not end")
		}
	})
	return r
}

func (r *rawSession) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rawSession) answer() string {
	r.t.Helper()
	type lineErr struct {
		line string
		err  error
	}
	ch := make(chan lineErr, 1)
	go func() {
		l, err := r.out.ReadString('\n')
		ch <- lineErr{l, err}
	}()
	select {
	case v := <-ch:
		if v.err != nil {
			r.t.Fatalf("reading an answer: %v", v.err)
		}
		return v.line
	case <-time.After(20 * time.Second):
		r.t.Fatal("no answer")
	}
	return ""
}

func callFrame(id, params string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":%s}`, id, params)
}

// TestFastCallsAnswerAsTheSDK sends the same lines to a session whose
// plain tools/call requests the transport answers (fastCalls) and to one
// where the SDK answers everything, and wants the same bytes back; it
// counts the calls that reached the SDK in the first, to know which path
// answered.
func TestFastCallsAnswerAsTheSDK(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	installFixture(t, p, "tools-ext")
	s, _, _ := newServer(t, p, serverOptions{})
	var sdkCalls atomic.Int64
	s.SDK().AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == methodCallTool {
				sdkCalls.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	fast, slow := startRaw(t, s, true), startRaw(t, s, false)

	echo, fail, structured := toolName("echo"), toolName("fail"), toolName("structured")
	steps := []struct {
		name  string
		line  string
		fast  bool // answered by fastCalls
		reply bool // a request, answered
		early bool // refused by the SDK before its middleware
	}{
		{"call before initialize", callFrame("1", `{"name":"`+echo+`","arguments":{"text":"x"}}`), false, true, true},
		{"initialize", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, false, true, false},
		{"initialized", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false, false, false},
		{"plain call", callFrame("3", `{"name":"`+echo+`","arguments":{"text":"<b>&amp; \"é\" \u2028 😀</b>"}}`), true, true, false},
		{"string id", callFrame(`"a\"b\u00e9"`, `{"name":"`+echo+`","arguments":{"text":"x"}}`), true, true, false},
		{"negative id", callFrame("-9007199254740991", `{"name":"`+echo+`","arguments":{"text":"x"}}`), true, true, false},
		{"members reordered, spaced", callFrame("4", ` { "arguments" : { "text" : "y" } , "name" : "`+echo+`" } `), true, true, false},
		{"_meta with a progress token", callFrame("5", `{"_meta":{"progressToken":"p1","x":{"y":[1]}},"name":"`+echo+`","arguments":{"text":"z"}}`), true, true, false},
		{"arguments absent", callFrame("6", `{"name":"`+echo+`"}`), true, true, false},
		{"arguments null", callFrame("7", `{"name":"`+echo+`","arguments":null}`), true, true, false},
		{"arguments an array", callFrame("8", `{"name":"`+echo+`","arguments":[1]}`), true, true, false},
		{"arguments not matching the schema", callFrame("9", `{"name":"`+echo+`","arguments":{"text":5}}`), true, true, false},
		{"a tool that throws", callFrame("10", `{"name":"`+fail+`","arguments":{}}`), true, true, false},
		{"structured content", callFrame("11", `{"name":"`+structured+`"}`), true, true, false},
		{"unknown tool", callFrame("12", `{"name":"no_such_tool","arguments":{}}`), false, true, false},
		{"need-approval tool", callFrame("13", `{"name":"`+toolName("approve")+`","arguments":{}}`), false, true, false},
		{"an extra member", callFrame("14", `{"name":"`+echo+`","arguments":{"text":"x"},"task":{}}`), false, true, false},
		{"an escaped name", callFrame("15", `{"name":"`+strings.Replace(echo, "e", `\u0065`, 1)+`","arguments":{"text":"x"}}`), false, true, false},
		{"an escaped member name", callFrame("16", `{"n\u0061me":"`+echo+`","arguments":{"text":"x"}}`), false, true, false},
		{"name twice", callFrame("17", `{"name":"no_such_tool","name":"`+echo+`","arguments":{"text":"x"}}`), false, true, false},
		{"name not a string", callFrame("18", `{"name":7}`), false, true, true},
		{"params an array", callFrame("19", `["`+echo+`"]`), false, true, true},
		{"params absent", `{"jsonrpc":"2.0","id":20,"method":"tools/call"}`, false, true, true},
		{"reserved _meta key", callFrame("21", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"},"name":"`+echo+`","arguments":{"text":"x"}}`), false, true, false},
		{"_meta not an object", callFrame("22", `{"_meta":"x","name":"`+echo+`","arguments":{"text":"x"}}`), false, true, true},
		{"a notification", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"` + echo + `","arguments":{"text":"x"}}}`, false, false, false},
		{"last plain call", callFrame("23", `{"name":"`+echo+`","arguments":{"text":"end"}}`), true, true, false},
	}
	for _, st := range steps {
		before := sdkCalls.Load()
		fast.send(st.line)
		var got string
		if st.reply {
			got = fast.answer()
		}
		viaSDK := sdkCalls.Load() != before
		slow.send(st.line)
		if !st.reply {
			continue
		}
		want := slow.answer()
		if got != want {
			t.Errorf("%s: answers differ\nfast: %s\nSDK:  %s", st.name, got, want)
		}
		if strings.Contains(st.line, `"tools/call"`) && !st.early && viaSDK == st.fast {
			t.Errorf("%s: answered by the SDK = %v, want %v", st.name, viaSDK, !st.fast)
		}
	}
}

// TestFastCallsCancel cancels a fast call with notifications/cancelled and
// by ending the input, and wants the SDK's answer to the first and the
// handler cancelled in both.
func TestFastCallsCancel(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	installFixture(t, p, "tools-ext")
	s, _, _ := newServer(t, p, serverOptions{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	started := func(r *rawSession) {
		t.Helper()
		_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(20 * time.Second))
		c, err := ln.Accept()
		if err != nil {
			t.Fatalf("the hang tool did not start: %v", err)
		}
		c.Close()
	}
	hang := func(id string) string {
		return callFrame(id, `{"name":"`+toolName("hang")+`","arguments":{"notify":"`+ln.Addr().String()+`"}}`)
	}
	answers := map[bool]string{}
	for _, isFast := range []bool{true, false} {
		r := startRaw(t, s, isFast)
		r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
		r.answer()
		r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		r.send(hang(`"h1"`))
		started(r)
		r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"h1","reason":"test"}}`)
		answers[isFast] = r.answer()
	}
	if answers[true] != answers[false] {
		t.Errorf("cancelled call: answers differ\nfast: %s\nSDK:  %s", answers[true], answers[false])
	}

	// The end of input cancels a fast call in flight, and the session ends.
	r := startRaw(t, s, true)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	r.answer()
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(hang("2"))
	started(r)
	r.in.Close()
	go func() { _, _ = io.Copy(io.Discard, r.out) }() // the answer to the cancelled call
	select {
	case err := <-r.done:
		r.done <- err // for the cleanup
	case <-time.After(20 * time.Second):
		t.Fatal("the session did not end at the end of input with a call in flight")
	}
	var st struct {
		Aborted int `json:"aborted"`
	}
	res := call(t, memorySession(t, s), "state", map[string]any{})
	if err := json.Unmarshal([]byte(text(t, res)), &st); err != nil {
		t.Fatal(err)
	}
	if st.Aborted != 3 {
		t.Errorf("the hang tool saw %d cancellations, want 3 (two cancelled calls, one ended input)", st.Aborted)
	}
}

// memorySession connects an SDK client to s over the in-memory transport.
func memorySession(t *testing.T, s *Server) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	cs, err := testClient(nil).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		<-done
	})
	return cs
}
