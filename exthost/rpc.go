package exthost

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"
)

// Error codes of the runner protocol (runner/runner.mjs uses the same).
const (
	codeMethodNotFound = -32601
	codeInternal       = -32603
	codeExtension      = -32000 // load, activate, event, prompt or dispose failed
	codeTool           = -32001 // a tool handler threw or its result cannot be rendered
	codeHost           = -32002 // a settings or secrets call the host refused
	codeBusy           = -32003 // the runner has too many requests in flight
)

// maxMessage bounds one protocol line, so a runaway extension cannot make the
// host buffer without limit.
const maxMessage = 64 << 20

// Limits that keep a flooding or stalled runner from growing the host or
// wedging a caller.
const (
	// maxInflight bounds the runner's requests the host serves at once;
	// more are refused with codeBusy.
	maxInflight = 64
	// writeQueue is how many messages wait for the writer.
	writeQueue = 128
	// replyTimeout bounds writing one reply to a runner that does not
	// read its input; past it the connection is closed.
	replyTimeout = time.Minute
)

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
	// Data is what the runner adds: where in the package a load or
	// activation failed.
	Data *rpcErrorData `json:"data,omitempty"`
}

// rpcErrorData is the runner's error data.
type rpcErrorData struct {
	Location string `json:"location,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

// handlerFunc answers a request or notification that the runner sends.
type handlerFunc func(ctx context.Context, method string, params json.RawMessage) (any, error)

// conn is one JSON-RPC 2.0 connection: newline-delimited JSON, requests in
// both directions. One goroutine writes, from a bounded queue, so no caller
// ever blocks in a pipe write: a runner that does not read its input makes
// callers wait on their context, never on the pipe, and close ends a write
// that is under way.
type conn struct {
	w        io.WriteCloser
	handler  handlerFunc
	queue    chan frame
	quit     chan struct{} // closed by close
	quitOnce sync.Once
	inflight chan struct{} // one token per request being served
	// cancelled is set once a call was cancelled: stop then waits until
	// the runner has read the $/cancelRequest.
	cancelled atomic.Bool

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan reply
	closed  error // why the read side ended; set before done is closed
	done    chan struct{}
}

// reply is the runner's answer to one call: its error, or the whole line,
// from which the caller decodes the result (so a large result is copied
// once, not first into a json.RawMessage).
type reply struct {
	err  *rpcError
	line []byte
}

// header is the part of a line that routes it.
type header struct {
	ID     *int64    `json:"id"`
	Method string    `json:"method"`
	Error  *rpcError `json:"error"`
}

// frame is one encoded message and the time by which it must be written.
type frame struct {
	b        []byte
	deadline time.Time
}

func newConn(r io.Reader, w io.WriteCloser, h handlerFunc) *conn {
	c := &conn{
		w: w, handler: h, pending: map[int64]chan reply{}, done: make(chan struct{}),
		queue: make(chan frame, writeQueue), quit: make(chan struct{}), inflight: make(chan struct{}, maxInflight),
	}
	go c.read(r)
	go c.write()
	return c
}

// write writes queued frames until close. A frame not written by its
// deadline breaks the connection (a partial line cannot be taken back).
// The pipe's deadline moves only when a frame's deadline is later, or more
// than deadlineSlack earlier, so a run of calls does not reset a timer each
// time: a blocked write is detected at most deadlineSlack late.
func (c *conn) write() {
	dl, _ := c.w.(interface{ SetWriteDeadline(time.Time) error })
	var cur time.Time
	for {
		select {
		case f := <-c.queue:
			if dl != nil && (f.deadline.After(cur) || cur.Sub(f.deadline) > deadlineSlack) {
				cur = f.deadline.Add(deadlineSlack)
				_ = dl.SetWriteDeadline(cur)
			}
			if _, err := c.w.Write(f.b); err != nil {
				_ = c.close()
				return
			}
		case <-c.quit:
			return
		}
	}
}

func (c *conn) read(r io.Reader) {
	err := c.readLines(bufio.NewReaderSize(r, 64<<10))
	c.mu.Lock()
	c.closed = err
	// done closes before any caller is woken, so a caller that got its
	// answer (closed) and calls again sees a dead connection: the process
	// is restarted instead of reached once more.
	close(c.done)
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

// readLines dispatches each line until the input ends or a line is longer
// than maxMessage. The buffer of a long line is dropped once it is handled.
func (c *conn) readLines(br *bufio.Reader) error {
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(long)+len(chunk) > maxMessage+1 {
			return fmt.Errorf("%w: the extension sent a line of more than %d bytes", ErrMessageTooLarge, maxMessage)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			long = appendGrow(long, chunk)
			continue
		}
		if err != nil {
			return err
		}
		if long != nil {
			c.dispatch(appendGrow(long, chunk), true)
			long = nil
			continue
		}
		c.dispatch(chunk, false)
	}
}

// appendGrow appends chunk to buf, doubling its capacity when it must
// grow (append grows large slices by a quarter, which for a 60 MB line
// leaves several times that in garbage copies), up to the line cap.
func appendGrow(buf, chunk []byte) []byte {
	if need := len(buf) + len(chunk); need > cap(buf) {
		grown := make([]byte, len(buf), min(max(2*cap(buf), need, 256<<10), maxMessage+1))
		copy(grown, buf)
		buf = grown
	}
	return append(buf, chunk...)
}

// dispatch routes one line; owned says the caller may keep line (else it
// is the reader's buffer and is copied).
func (c *conn) dispatch(line []byte, owned bool) {
	var h header
	if err := json.Unmarshal(line, &h); err != nil {
		return // not ours to fix; the runner never sends this
	}
	switch {
	case h.Method != "":
		m := new(message)
		if err := json.Unmarshal(line, m); err != nil {
			return
		}
		select {
		case c.inflight <- struct{}{}:
			go c.serve(m)
		default:
			if m.ID != nil {
				c.trySend(&message{JSONRPC: "2.0", ID: m.ID, Error: &rpcError{Code: codeBusy,
					Message: fmt.Sprintf("too many requests in flight (at most %d): %s refused", maxInflight, m.Method)}})
			}
		}
	case h.ID != nil:
		c.mu.Lock()
		ch := c.pending[*h.ID]
		delete(c.pending, *h.ID)
		c.mu.Unlock()
		if ch == nil {
			return
		}
		if h.Error != nil {
			ch <- reply{err: h.Error}
			return
		}
		if !owned {
			line = bytes.Clone(line)
		}
		ch <- reply{line: line}
	}
}

func (c *conn) serve(m *message) {
	defer func() { <-c.inflight }()
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
	ctx, cancel := context.WithTimeout(context.Background(), replyTimeout)
	defer cancel()
	_ = c.send(ctx, out)
}

func encode(m *message) ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if len(b) > maxMessage {
		return nil, fmt.Errorf("%w: the %s message is %d bytes", ErrMessageTooLarge, cmp.Or(m.Method, "reply"), len(b))
	}
	return append(b, '\n'), nil
}

// encodeRequest is the line of request id: params are encoded once, into
// the line (encoding/json writes compact JSON, so params hold no newline).
func encodeRequest(id int64, method string, params any) ([]byte, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	m, err := json.Marshal(method)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(p)+len(m)+48)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	b = append(b, m...)
	b = append(b, `,"params":`...)
	b = append(b, p...)
	b = append(b, "}\n"...)
	if len(b)-1 > maxMessage {
		return nil, fmt.Errorf("%w: the %s message is %d bytes", ErrMessageTooLarge, method, len(b)-1)
	}
	return b, nil
}

// send queues m for the writer and waits for room while ctx lasts.
func (c *conn) send(ctx context.Context, m *message) error {
	b, err := encode(m)
	if err != nil {
		return err
	}
	return c.sendLine(ctx, b)
}

// sendLine queues the encoded line b; see send.
func (c *conn) sendLine(ctx context.Context, b []byte) error {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(replyTimeout)
	}
	select {
	case c.queue <- frame{b: b, deadline: deadline}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.quit:
		return errConnClosed
	}
}

// trySend queues m if there is room and drops it otherwise: for messages
// to a runner that is not reading anyway.
func (c *conn) trySend(m *message) {
	b, err := encode(m)
	if err != nil {
		return
	}
	select {
	case c.queue <- frame{b: b, deadline: time.Now().Add(replyTimeout)}:
	default:
	}
}

// deadlineSlack is how much later than its deadline a blocked write may
// be given up.
const deadlineSlack = time.Second

// errConnClosed is returned for calls on a connection whose peer went away.
var errConnClosed = errors.New("connection closed")

// call sends a request and waits for its answer or ctx. When ctx ends first,
// the runner is told with $/cancelRequest (if the queue has room) and ctx's
// error is returned.
func (c *conn) call(ctx context.Context, method string, params, result any) error {
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.closed != nil {
		c.mu.Unlock()
		return c.closedError()
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	line, err := encodeRequest(id, method, params)
	if err != nil {
		c.forget(id)
		return err
	}
	if err := c.sendLine(ctx, line); err != nil {
		c.forget(id)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, ErrMessageTooLarge):
			return err
		}
		return fmt.Errorf("%w: %v", errConnClosed, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return c.closedError()
		}
		if r.err != nil {
			return r.err
		}
		if t, ok := result.(*toolText); ok {
			return t.decodeLine(r.line)
		}
		if result != nil {
			env := struct {
				Result any `json:"result"`
			}{result}
			return json.Unmarshal(r.line, &env)
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		cp, _ := json.Marshal(map[string]json.RawMessage{"id": json.RawMessage(strconv.FormatInt(id, 10))})
		c.trySend(&message{JSONRPC: "2.0", Method: "$/cancelRequest", Params: cp})
		c.cancelled.Store(true)
		return ctx.Err()
	}
}

// closedError is errConnClosed, wrapping why the read side ended when that
// was the runner's fault (a message over the size cap).
func (c *conn) closedError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if errors.Is(c.closed, ErrMessageTooLarge) {
		return &connClosedError{cause: c.closed}
	}
	return errConnClosed
}

// connClosedError is errConnClosed with the runner's fault as its cause.
type connClosedError struct{ cause error }

func (e *connClosedError) Error() string        { return errConnClosed.Error() + ": " + e.cause.Error() }
func (e *connClosedError) Is(target error) bool { return target == errConnClosed }
func (e *connClosedError) Unwrap() error        { return e.cause }

func (c *conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// close closes the write side, ending a write under way; the runner exits
// when it sees the end.
func (c *conn) close() error {
	var err error
	c.quitOnce.Do(func() {
		close(c.quit)
		err = c.w.Close()
	})
	return err
}

// toolText is the result of invokeTool. It is decoded from the reply line
// without a copy where it can be: a tool result can be tens of megabytes,
// and a copy doubles what the host holds at its peak.
type toolText struct {
	Text string
}

// decodeLine sets t from a reply line that the connection handed over
// (nothing else holds or changes it). A text without escapes, in valid
// UTF-8, becomes a string over the line's own bytes; any other is decoded
// by encoding/json, with its rules (null is "", invalid UTF-8 becomes
// U+FFFD, a number is an error).
func (t *toolText) decodeLine(line []byte) error {
	var env struct {
		Result *struct {
			Text jsonSpan `json:"text"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		return err
	}
	if env.Result == nil {
		t.Text = ""
		return nil
	}
	b := env.Result.Text
	if n := len(b); n >= 2 && b[0] == '"' && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b[1:n-1]) {
		t.Text = unsafe.String(unsafe.SliceData(b[1:n-1]), n-2)
		return nil
	}
	t.Text = ""
	if len(b) == 0 {
		return nil
	}
	return json.Unmarshal(b, &t.Text)
}

// jsonSpan is a JSON value as it appears in the input, not copied:
// encoding/json hands UnmarshalJSON the bytes of the input itself.
type jsonSpan []byte

// UnmarshalJSON keeps b, which is part of a line the connection gave away.
func (s *jsonSpan) UnmarshalJSON(b []byte) error {
	*s = b
	return nil
}
