package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spiritagents/spirit/internal/jsontok"
)

// Methods the stdio transport answers or watches itself.
const (
	methodCallTool  = "tools/call"
	methodCancelled = "notifications/cancelled"
)

// metaReserved begins the _meta keys that change how the SDK handles a
// request (the per-request protocol of SEP-2575): such a request goes to
// the SDK.
const metaReserved = "io.modelcontextprotocol/"

// fastCalls answers the plain tools/call requests of one stdio session
// without the SDK's request handling: the transport's reading goroutine
// hands such a request straight to a caller goroutine, which calls the
// tool and writes the answer. The SDK would decode the params twice (each
// time with a fresh decoder and its 32 KiB buffer), start a goroutine,
// and pass the request through its middleware, which on 2 cores made a
// call cost more than the TypeScript SDK's whole server.
//
// A request is plain when the session is initialized (the SDK's own
// condition), its params have only name, arguments and a _meta without
// the SDK's reserved keys, each once, and it names a tool of the server
// that asks the user nothing. Everything else, and any doubt, goes to the
// SDK. The answer is the SDK's to the byte (TestFastCallsAnswerAsTheSDK):
// the same result from Server.run, marshalled as the SDK marshals it, and
// written by the same lineConn.Write. notifications/cancelled cancels a
// fast call as the SDK cancels its own, and then reaches the SDK too.
type fastCalls struct {
	s    *Server
	conn *lineConn
	// session is the SDK's session on conn, once connected.
	session atomic.Pointer[sdk.ServerSession]

	mu     sync.Mutex
	calls  map[jsonrpc.ID]context.CancelFunc // in flight (under mu)
	closed bool                              // drain ran: no new calls (under mu)
	wg     sync.WaitGroup
}

// take answers req when it is a plain tools/call and reports whether it
// did; a cancellation is applied and not taken.
func (f *fastCalls) take(req *jsonrpc.Request) bool {
	switch req.Method {
	case methodCallTool:
	case methodCancelled:
		f.cancel(req.Params)
		return false
	default:
		return false
	}
	ss := f.session.Load()
	if !req.IsCall() || ss == nil || ss.InitializeParams() == nil {
		return false
	}
	name, args, ok := plainCallParams(req.Params)
	if !ok {
		return false
	}
	t, ok := f.s.lookup(name)
	if !ok || asks(t) {
		return false
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.mu.Lock()
	if _, dup := f.calls[req.ID]; f.closed || dup {
		f.mu.Unlock()
		cancel()
		return false
	}
	if f.calls == nil {
		f.calls = map[jsonrpc.ID]context.CancelFunc{}
	}
	f.calls[req.ID] = cancel
	f.wg.Add(1)
	f.mu.Unlock()
	id := req.ID
	f.s.callers.start(func() {
		defer f.wg.Done()
		res, err := f.s.run(ctx, t, callRequest(t, args), true)
		// As the SDK does, the id is free again before the answer goes out.
		f.mu.Lock()
		delete(f.calls, id)
		f.mu.Unlock()
		cancel()
		f.answer(id, res, err)
	})
	return true
}

// answer writes the SDK's answer to a tools/call whose handler returned
// res and err.
func (f *fastCalls) answer(id jsonrpc.ID, res *sdk.CallToolResult, err error) {
	resp := &jsonrpc.Response{ID: id, Error: err}
	if err == nil { // Server.run's results always have content: the SDK's callTool leaves them as they are
		data, merr := marshalNoEscape(res)
		if merr != nil {
			resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "spirit: the tool result cannot be encoded: " + merr.Error()}
		} else {
			resp.Result = data
		}
	}
	select {
	case <-f.conn.closed: // the SDK writes nothing once its connection is closed
		return
	default:
	}
	if werr := f.conn.Write(context.Background(), resp); werr != nil && f.s.opts.Reporter != nil {
		f.s.opts.Reporter.Warn(werr)
	}
}

// cancel cancels the fast call that a notifications/cancelled names.
func (f *fastCalls) cancel(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return
	}
	if n, ok := p.RequestID.(float64); ok && n != float64(int64(n)) {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	f.mu.Lock()
	cancel := f.calls[id]
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// drain cancels the fast calls in flight, as the SDK cancels its own when
// the input ends or the connection closes, and waits for their answers;
// no call starts after it.
func (f *fastCalls) drain() {
	f.mu.Lock()
	f.closed = true
	for _, cancel := range f.calls {
		cancel()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// plainCallParams returns the tool name and arguments of tools/call params
// that the SDK would read exactly so and handle with no more than that:
// an object of name (a string without escapes), arguments (any value,
// absent when nil) and _meta (an object without the SDK's reserved keys),
// each at most once and nothing else. ok is false for anything else.
func plainCallParams(params json.RawMessage) (name string, args json.RawMessage, ok bool) {
	sc := jsontok.NewScanner(params, MaxFrameDepth)
	if t, err := sc.Next(); err != nil || t.Kind != jsontok.BeginObject {
		return "", nil, false
	}
	var seenName, seenArgs, seenMeta bool
	for {
		k, err := sc.Next()
		if err != nil {
			return "", nil, false
		}
		if k.Kind == jsontok.EndObject {
			break
		}
		key := sc.Bytes(k)
		v, err := sc.Next()
		if err != nil {
			return "", nil, false
		}
		switch string(key) {
		case `"name"`:
			raw := sc.Bytes(v)
			if seenName || v.Kind != jsontok.String || bytes.IndexByte(raw, '\\') >= 0 {
				return "", nil, false
			}
			seenName, name = true, string(raw[1:len(raw)-1])
		case `"arguments"`:
			end, err := sc.Skip(v)
			if seenArgs || err != nil {
				return "", nil, false
			}
			seenArgs, args = true, params[v.Start:end]
		case `"_meta"`:
			if seenMeta || v.Kind != jsontok.BeginObject || !plainMeta(sc) {
				return "", nil, false
			}
			seenMeta = true
		default:
			return "", nil, false
		}
	}
	if t, err := sc.Next(); err != nil || t.Kind != jsontok.End || !seenName {
		return "", nil, false
	}
	return name, args, true
}

// plainMeta reads the rest of a _meta object and reports whether it has
// no key that the SDK reads (escaped keys count as such: no guessing).
func plainMeta(sc *jsontok.Scanner) bool {
	for {
		k, err := sc.Next()
		if err != nil {
			return false
		}
		if k.Kind == jsontok.EndObject {
			return true
		}
		key := sc.Bytes(k)
		if bytes.IndexByte(key, '\\') >= 0 || strings.HasPrefix(string(key[1:]), metaReserved) {
			return false
		}
		v, err := sc.Next()
		if err != nil {
			return false
		}
		if _, err := sc.Skip(v); err != nil {
			return false
		}
	}
}

// marshalNoEscape marshals v as the SDK marshals a result: encoding/json
// without HTML escaping and without the encoder's newline.
func marshalNoEscape(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
