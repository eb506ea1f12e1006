package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits of one incoming stdio frame.
const (
	// MaxFrameSize is the largest line accepted over stdio, the SDK's own
	// default; a longer line is skipped to its end, never buffered whole.
	MaxFrameSize = sdk.DefaultMaxLineLength
	// MaxFrameDepth is the deepest nesting of objects and arrays accepted,
	// the SDK decoder's own limit.
	MaxFrameDepth = 1000
)

// JSON-RPC error codes of malformed frames.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// maxSafeInteger is the largest integer id the SDK keeps exactly: it reads
// numeric ids as float64.
const maxSafeInteger = 1<<53 - 1

// FrameError is a malformed incoming frame, answered with a JSON-RPC error
// and reported to the Reporter; the session goes on.
type FrameError struct {
	// Code is -32700 (parse error) or -32600 (invalid request).
	Code int
	// Reason says what is wrong, without the frame's content.
	Reason string
}

func (e *FrameError) Error() string {
	return fmt.Sprintf("mcp: malformed frame on stdin (%d): %s", e.Code, e.Reason)
}

// NewStdioTransport returns the transport of `spirit mcp serve` over r and
// w (standard input and output): newline-delimited JSON-RPC 2.0 as the SDK
// speaks it, with each incoming line checked before the SDK sees it. The
// SDK ends the session on any frame it cannot decode; this transport
// answers such a frame itself with the JSON-RPC error (-32700 for bytes that
// are not one JSON value within MaxFrameSize and MaxFrameDepth, or not
// UTF-8; -32600 for a value that is not a single JSON-RPC 2.0 message, such
// as a batch, an id that is not a string or an exact integer, or params
// that are not structured), with the frame's id when it has a valid one
// and null otherwise, reports it to rep (which may be nil), and goes on
// serving. Blank lines are skipped. Closing the transport's connection
// closes r when it is an io.Closer, never w.
//
// Each line is decoded once: the check's own pass over a request or
// notification builds the jsonrpc.Request (responses, which only answer the
// server's own requests, go through jsonrpc.DecodeMessage). The SDK's
// IOTransport would run every line through its streaming decoder, try it
// as a batch first, and decode the method again, each pass allocating a
// fresh 32 KiB decoder buffer.
func NewStdioTransport(r io.Reader, w io.Writer, rep Reporter) sdk.Transport {
	out := &lockedWriter{w: w}
	in, unpoll := pollable(r)
	return &lineTransport{filter: &frameFilter{src: r, unpoll: unpoll, r: bufio.NewReaderSize(in, 64<<10), out: out, rep: rep}, out: out}
}

// lineTransport is an sdk.Transport over a frameFilter: one message a line.
type lineTransport struct {
	filter *frameFilter
	out    *lockedWriter
	// server, when set before Connect (Server.Run), answers the plain
	// tools/call requests itself (fastCalls); conn is the connection
	// Connect made.
	server *Server
	conn   *lineConn
}

// Connect starts reading lines; it is called once.
func (t *lineTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{filter: t.filter, out: t.out, incoming: make(chan msgOrErr), closed: make(chan struct{})}
	if t.server != nil {
		c.fast = &fastCalls{s: t.server, conn: c}
	}
	t.conn = c
	go c.read()
	return c, nil
}

type msgOrErr struct {
	msg jsonrpc.Message
	err error
}

// lineConn reads on its own goroutine, so Close unblocks a Read waiting
// for input even when the source cannot be interrupted (a terminal).
type lineConn struct {
	filter    *frameFilter
	out       *lockedWriter
	incoming  chan msgOrErr
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
	fast      *fastCalls // nil: every message goes to the SDK
}

func (c *lineConn) read() {
	for {
		msg, err := c.filter.next()
		if c.fast != nil {
			if err != nil {
				c.fast.drain() // the SDK cancels its calls at the end of input too
			} else if req, ok := msg.(*jsonrpc.Request); ok && c.fast.take(req) {
				continue
			}
		}
		select {
		case c.incoming <- msgOrErr{msg, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read returns the next message.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case v := <-c.incoming:
		if v.err != nil {
			select {
			case <-c.closed: // the source's error is that Close closed it
				return nil, io.EOF
			default:
			}
		}
		return v.msg, v.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write writes msg as one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	_, err = c.out.Write(append(data, '\n'))
	return err
}

// Close closes the source (when it can be closed), never the output.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.closeErr = c.filter.Close()
		if c.fast != nil {
			c.fast.drain()
		}
	})
	return c.closeErr
}

// SessionID is "": a stdio connection has no session id.
func (c *lineConn) SessionID() string { return "" }

// lockedWriter writes whole messages one at a time: the SDK's responses
// and the filter's error answers share the stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves the underlying stream open.
func (l *lockedWriter) Close() error { return nil }

// frameFilter passes the well-formed lines of src to the SDK, decoded,
// and answers the malformed ones.
type frameFilter struct {
	src    io.Reader
	unpoll func() error // closes what pollable made of src
	r      *bufio.Reader
	out    io.Writer
	rep    Reporter
}

// next returns the next well-formed message, answering the malformed lines
// on the way.
func (f *frameFilter) next() (jsonrpc.Message, error) {
	for {
		line, err := f.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if len(line) > MaxFrameSize {
			if werr := f.answer(nil, tooLarge()); werr != nil {
				return nil, werr
			}
			continue
		}
		msg, id, ferr := parseFrame(line)
		if ferr != nil {
			if werr := f.answer(id, ferr); werr != nil {
				return nil, werr
			}
			continue
		}
		return msg, nil
	}
}

// readLine returns the next line with its newline, at most MaxFrameSize
// bytes of it; a longer line is read to its end and dropped, and answered
// as a parse error. At the end of the stream it returns what is left, then
// io.EOF.
func (f *frameFilter) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(line)+len(chunk) > MaxFrameSize+2 { // the line end may be CRLF
			if err := f.skipLine(err); err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			werr := f.answer(nil, tooLarge())
			if werr != nil {
				return nil, werr
			}
			line = nil
			continue
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}

func tooLarge() *FrameError {
	return &FrameError{codeParseError, fmt.Sprintf("frame larger than %d bytes", MaxFrameSize)}
}

// skipLine discards the rest of the current line; err is the error of the
// read that found it too long.
func (f *frameFilter) skipLine(err error) error {
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = f.r.ReadSlice('\n')
	}
	return err
}

// answer writes the JSON-RPC error for a malformed frame.
func (f *frameFilter) answer(id json.RawMessage, fe *FrameError) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	msg := "Parse error: " + fe.Reason
	if fe.Code == codeInvalidRequest {
		msg = "Invalid Request: " + fe.Reason
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{fe.Code, msg}})
	if err != nil {
		return err
	}
	if f.rep != nil {
		f.rep.Warn(fe)
	}
	_, err = f.out.Write(append(data, '\n'))
	return err
}

// Close closes the source when it can be closed.
func (f *frameFilter) Close() error {
	err := f.unpoll()
	if c, ok := f.src.(io.Closer); ok {
		return errors.Join(err, c.Close())
	}
	return err
}

// CheckFrame checks that line (without its line end) is one JSON-RPC 2.0
// message that the SDK can read: a request, a notification or a response.
// On failure it returns a *FrameError, and the frame's id when the frame
// is a request whose id is valid (the error answer carries it).
func CheckFrame(line []byte) (json.RawMessage, *FrameError) {
	_, id, ferr := checkFrame(line)
	return id, ferr
}

// checkFrame is CheckFrame, returning the members of a valid frame too.
func checkFrame(line []byte) (map[string]json.RawMessage, json.RawMessage, *FrameError) {
	if !utf8.Valid(line) {
		return nil, nil, &FrameError{codeParseError, "not UTF-8"}
	}
	if depth(line) > MaxFrameDepth {
		return nil, nil, &FrameError{codeParseError, fmt.Sprintf("nested deeper than %d", MaxFrameDepth)}
	}
	notJSON := &FrameError{codeParseError, "not one JSON value"}
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		switch {
		case !json.Valid(line):
			return nil, nil, notJSON
		case line[0] == '[':
			return nil, nil, &FrameError{codeInvalidRequest, "batches are not supported"}
		}
		return nil, nil, &FrameError{codeInvalidRequest, "a message must be a JSON object"}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil { // it checks the whole line first
		return nil, nil, notJSON
	}
	id, hasID := m["id"]
	if hasID && !validID(id) {
		return nil, nil, &FrameError{codeInvalidRequest, "id must be a string or an integer"}
	}
	_, isRequest := m["method"]
	if !isRequest {
		id = nil // a broken response: its id is the server's, not the client's
	}
	if v, ok := m["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return nil, id, &FrameError{codeInvalidRequest, `jsonrpc must be "2.0"`}
	}
	if method, ok := m["method"]; ok {
		if len(method) == 0 || method[0] != '"' {
			return nil, id, &FrameError{codeInvalidRequest, "method must be a string"}
		}
		if params, ok := m["params"]; ok && params[0] != '{' && params[0] != '[' && string(params) != "null" {
			return nil, id, &FrameError{codeInvalidRequest, "params must be an object or an array"}
		}
		return m, nil, nil
	}
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if !hasID || hasResult == hasError {
		return nil, id, &FrameError{codeInvalidRequest, "a message needs a method, or an id and one of result and error"}
	}
	// A response (rare from a client: only answers to the server's own
	// requests) must also have the shape the SDK decodes, such as an
	// integer error code.
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return nil, nil, &FrameError{codeInvalidRequest, "not a JSON-RPC message the MCP SDK reads"}
	}
	return m, nil, nil
}

// parseFrame checks line as CheckFrame does and returns its message. A
// request or notification is built from the check's own decoding, as
// jsonrpc.DecodeMessage would build it (FuzzCheckFrame compares the two);
// a response goes through jsonrpc.DecodeMessage.
func parseFrame(line []byte) (jsonrpc.Message, json.RawMessage, *FrameError) {
	m, id, ferr := checkFrame(line)
	if ferr != nil {
		return nil, id, ferr
	}
	rawMethod, ok := m["method"]
	if !ok {
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return nil, nil, &FrameError{codeInvalidRequest, "not a JSON-RPC message the MCP SDK reads"}
		}
		return msg, nil, nil
	}
	req := &jsonrpc.Request{Params: m["params"]}
	if err := json.Unmarshal(rawMethod, &req.Method); err != nil {
		return nil, nil, &FrameError{codeInvalidRequest, "method must be a string"}
	}
	if raw, ok := m["id"]; ok {
		var v any
		if raw[0] == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, nil, &FrameError{codeInvalidRequest, "id must be a string or an integer"}
			}
			v = s
		} else {
			n, err := strconv.ParseInt(string(raw), 10, 64)
			if err != nil {
				return nil, nil, &FrameError{codeInvalidRequest, "id must be a string or an integer"}
			}
			v = float64(n) // as the SDK decodes a number; validID kept it exact
		}
		if req.ID, ferr = makeID(v); ferr != nil {
			return nil, nil, ferr
		}
	}
	return req, nil, nil
}

func makeID(v any) (jsonrpc.ID, *FrameError) {
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		return id, &FrameError{codeInvalidRequest, "id must be a string or an integer"}
	}
	return id, nil
}

// validID reports whether a raw id is a string or an integer that the
// SDK keeps exactly. null is refused: MCP ids are never null.
func validID(raw json.RawMessage) bool {
	switch raw[0] {
	case '"':
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if bytes.ContainsAny(raw, ".eE") {
			return false
		}
		var n int64
		if json.Unmarshal(raw, &n) != nil {
			return false
		}
		return n >= -maxSafeInteger && n <= maxSafeInteger
	}
	return false
}

// depth returns the deepest nesting of objects and arrays in data, outside
// strings.
func depth(data []byte) int {
	d, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			d++
			deepest = max(deepest, d)
		case b == '}' || b == ']':
			d--
		}
	}
	return deepest
}
