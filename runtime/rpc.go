package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// Error codes of the runner protocol (runner/runner.mjs uses the same).
const (
	codeMethodNotFound = -32601
	codeInternal       = -32603
	codeExtension      = -32000 // load, activate, event, prompt or dispose failed
	codeTool           = -32001 // a tool handler threw or its result cannot be rendered
	codeHost           = -32002 // a settings or secrets call the host refused
)

// maxMessage bounds one protocol line, so a runaway extension cannot make the
// host buffer without limit.
const maxMessage = 64 << 20

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *int64          `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

// handlerFunc answers a request or notification that the runner sends.
type handlerFunc func(ctx context.Context, method string, params json.RawMessage) (any, error)

// conn is one JSON-RPC 2.0 connection: newline-delimited JSON, requests in
// both directions.
type conn struct {
	w       io.WriteCloser
	wmu     sync.Mutex
	enc     []byte
	handler handlerFunc

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan *message
	closed  error // set once the read side ends
	done    chan struct{}
}

func newConn(r io.Reader, w io.WriteCloser, h handlerFunc) *conn {
	c := &conn{w: w, handler: h, pending: map[int64]chan *message{}, done: make(chan struct{})}
	go c.read(r)
	return c
}

func (c *conn) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxMessage)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		m := new(message)
		if err := json.Unmarshal(line, m); err != nil {
			continue // not ours to fix; the runner never sends this
		}
		switch {
		case m.Method != "":
			go c.serve(m)
		case m.ID != nil:
			c.mu.Lock()
			ch := c.pending[*m.ID]
			delete(c.pending, *m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	c.mu.Lock()
	c.closed = err
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.done)
}

func (c *conn) serve(m *message) {
	if c.handler == nil {
		return
	}
	res, err := c.handler(context.Background(), m.Method, m.Params)
	if m.ID == nil {
		return
	}
	out := &message{JSONRPC: "2.0", ID: m.ID}
	if err != nil {
		out.Error = &rpcError{Code: codeHost, Message: err.Error()}
	} else {
		b, merr := json.Marshal(res)
		if merr != nil {
			out.Error = &rpcError{Code: codeInternal, Message: merr.Error()}
		} else {
			out.Result = b
		}
	}
	_ = c.send(out)
}

func (c *conn) send(m *message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.enc = append(append(c.enc[:0], b...), '\n')
	_, err = c.w.Write(c.enc)
	return err
}

// errConnClosed is returned for calls on a connection whose peer went away.
var errConnClosed = errors.New("connection closed")

// call sends a request and waits for its answer or ctx. When ctx ends first,
// the runner is told with $/cancelRequest and ctx's error is returned.
func (c *conn) call(ctx context.Context, method string, params, result any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ch := make(chan *message, 1)
	c.mu.Lock()
	if c.closed != nil {
		c.mu.Unlock()
		return errConnClosed
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.send(&message{JSONRPC: "2.0", ID: &id, Method: method, Params: p}); err != nil {
		c.forget(id)
		return fmt.Errorf("%w: %v", errConnClosed, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return errConnClosed
		}
		if m.Error != nil {
			return m.Error
		}
		if result != nil && len(m.Result) > 0 {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		cp, _ := json.Marshal(map[string]json.RawMessage{"id": json.RawMessage(strconv.FormatInt(id, 10))})
		_ = c.send(&message{JSONRPC: "2.0", Method: "$/cancelRequest", Params: cp})
		return ctx.Err()
	}
}

func (c *conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// close closes the write side; the runner exits when it sees the end.
func (c *conn) close() error { return c.w.Close() }
