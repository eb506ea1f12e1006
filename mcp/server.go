package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spiritagents/spirit/exthost"
)

// DefaultPollInterval is how often a Server looks for installs and removes.
const DefaultPollInterval = time.Second

// DefaultSessionTimeout is how long an HTTP session may stay idle before it
// is closed (the client then starts a new one).
const DefaultSessionTimeout = 30 * time.Minute

// ProtocolVersions returns the MCP protocol versions the server offers: the
// initialize-based ones, which have sessions and server-to-client requests.
func ProtocolVersions() []string {
	return []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
}

// Descriptions appended to the description of tools that ask the user first.
const (
	NeedApprovalNote  = "This tool asks the user for approval before it runs."
	NeedQuestionsNote = "This tool asks the user for an execution note before it runs."
)

// Reporter hears about problems that do not stop the server. A nil
// Reporter is allowed.
type Reporter interface {
	// Warn reports one problem: a tool left out, an event that failed, a
	// tool list that could not be read.
	Warn(err error)
}

// Options configure a Server.
type Options struct {
	// Host runs the extensions. Required; the caller closes it after the
	// Server.
	Host *exthost.Host
	// Name and Version name the server to clients; "" means "spirit" and "dev".
	Name, Version string
	// Approve lets need-approval tools run when the client cannot be asked
	// (no elicitation): the client's own tool confirmation stands in.
	Approve bool
	// PollInterval is how often installs and removes are looked for; zero
	// means DefaultPollInterval, negative disables polling (tools/list still
	// re-reads the list).
	PollInterval time.Duration
	// WorkspaceRoot is the detail of onSessionReset; "" means the current
	// directory.
	WorkspaceRoot string
	// Reporter hears warnings; it may be nil.
	Reporter Reporter
	// SessionTimeout closes an HTTP session that has had no request for
	// this long; zero means DefaultSessionTimeout.
	SessionTimeout time.Duration
}

// Server is an MCP server over a exthost.Host. Create it with New and Close
// it when done; it may serve many sessions at once (HTTP) or one (stdio).
type Server struct {
	opts Options
	host *exthost.Host
	srv  *sdk.Server

	// life ends at Close; it bounds polling and event delivery.
	life     context.Context
	stop     context.CancelFunc
	stopPoll context.CancelFunc
	pollDone chan struct{}
	wg       sync.WaitGroup
	events   chan exthost.Event
	evMu     sync.Mutex
	evClosed bool
	stopOnce sync.Once

	syncMu sync.Mutex
	// warned holds the install warnings reported already (under syncMu).
	warned map[string]bool
	mu     sync.Mutex
	tools  map[string]registered

	callers *callers
}

// registered is one tool the SDK server holds.
type registered struct {
	tool exthost.Tool
	// key is the tool's JSON, to notice a changed definition.
	key string
}

// New returns a Server with the host's current tools.
func New(opts Options) (*Server, error) {
	if opts.Host == nil {
		return nil, errors.New("mcp: Options.Host is required")
	}
	if opts.Name == "" {
		opts.Name = "spirit"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = DefaultSessionTimeout
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.WorkspaceRoot == "" {
		opts.WorkspaceRoot, _ = os.Getwd()
	}
	life, stop := context.WithCancel(context.Background())
	s := &Server{
		opts:   opts,
		host:   opts.Host,
		life:   life,
		stop:   stop,
		events: make(chan exthost.Event, 256),
		tools:  map[string]registered{},
	}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: opts.Name, Title: "Spirit Agent extensions", Version: opts.Version}, &sdk.ServerOptions{
		InitializedHandler:        s.initialized,
		Capabilities:              &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
		SupportedProtocolVersions: ProtocolVersions(),
	})
	s.srv.AddReceivingMiddleware(s.middleware)
	s.callers = startCallers(life)
	if err := s.Sync(context.Background()); err != nil {
		stop()
		return nil, err
	}
	s.wg.Add(1)
	go s.deliver()
	pollCtx, stopPoll := context.WithCancel(life)
	s.stopPoll, s.pollDone = stopPoll, make(chan struct{})
	if opts.PollInterval > 0 {
		go s.poll(pollCtx)
	} else {
		close(s.pollDone)
	}
	return s, nil
}

// SDK returns the underlying SDK server, to connect transports of one's own.
func (s *Server) SDK() *sdk.Server { return s.srv }

// Run serves one session over t (for example &sdk.StdioTransport{}) until
// the client disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	var err error
	if lt, ok := t.(*lineTransport); ok {
		err = s.runStdio(ctx, lt)
	} else {
		err = s.srv.Run(ctx, t)
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// runStdio is the SDK's Server.Run over the stdio transport, which then
// answers the plain tools/call requests itself (fastCalls).
func (s *Server) runStdio(ctx context.Context, t *lineTransport) error {
	t.server = s
	ss, err := s.srv.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	t.conn.fast.session.Store(ss)
	closed := make(chan error, 1)
	go func() { closed <- ss.Wait() }()
	select {
	case <-ctx.Done():
		_ = ss.Close()
		<-closed
		return ctx.Err()
	case err := <-closed:
		return err
	}
}

// Close stops polling, delivers the events already queued (for at most a
// few seconds) and returns. It does not close the Host.
func (s *Server) Close() error {
	s.stopOnce.Do(func() {
		s.stopPoll()
		<-s.pollDone
		s.evMu.Lock()
		s.evClosed = true
		close(s.events)
		s.evMu.Unlock()
		done := make(chan struct{})
		go func() { s.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		s.stop()
		<-done
	})
	return nil
}

// warnInstalled reports, once each, what spirit's install would refuse in
// an installed extension that the apps accept; it is served all the same.
func (s *Server) warnInstalled() {
	warns, err := s.host.Warnings()
	if err != nil {
		return
	}
	for _, w := range warns {
		for _, msg := range w.Warnings {
			key := w.ExtensionID + "\x00" + msg
			if s.warned[key] {
				continue
			}
			if s.warned == nil {
				s.warned = map[string]bool{}
			}
			s.warned[key] = true
			s.warn(fmt.Errorf("%s: %s", w.ExtensionID, msg))
		}
	}
}

func (s *Server) warn(err error) {
	if s.opts.Reporter != nil && err != nil {
		s.opts.Reporter.Warn(err)
	}
}

// poll syncs the tool list until ctx ends.
func (s *Server) poll(ctx context.Context) {
	defer close(s.pollDone)
	t := time.NewTicker(s.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Sync(ctx); err != nil && ctx.Err() == nil {
				s.warn(err)
			}
		}
	}
}

// Sync reads the host's tools and brings the SDK server's tools in line:
// removed tools are removed, new and changed ones added. Every change sends
// notifications/tools/list_changed to the connected sessions.
func (s *Server) Sync(ctx context.Context) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	tools, err := s.host.Tools(ctx)
	if err != nil {
		return fmt.Errorf("reading the installed tools: %w", err)
	}
	s.warnInstalled()
	next := map[string]registered{}
	defs := map[string]*sdk.Tool{}
	for _, t := range tools {
		key, _ := json.Marshal(t)
		s.mu.Lock()
		old, had := s.tools[t.Name]
		s.mu.Unlock()
		if had && old.key == string(key) {
			next[t.Name] = old
			continue
		}
		def, err := toolDefinition(t)
		if err != nil {
			s.warn(err)
			continue
		}
		next[t.Name] = registered{tool: t, key: string(key)}
		defs[t.Name] = def
	}
	var gone []string
	s.mu.Lock()
	for name := range s.tools {
		if _, ok := next[name]; !ok {
			gone = append(gone, name)
		}
	}
	s.mu.Unlock()
	if len(gone) > 0 {
		s.srv.RemoveTools(gone...)
	}
	for name, def := range defs {
		if err := s.addTool(def); err != nil {
			s.warn(err)
			delete(next, name)
		}
	}
	s.mu.Lock()
	s.tools = next
	s.mu.Unlock()
	return nil
}

// addTool adds def to the SDK server. The SDK panics on a definition it
// refuses; an extension's manifest must not take the server down, so the
// panic becomes an *InvalidSchemaError.
func (s *Server) addTool(def *sdk.Tool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &InvalidSchemaError{Tool: def.Name, Reason: fmt.Sprintf("is refused by the MCP SDK: %v", r)}
		}
	}()
	s.srv.AddTool(def, s.handler(def.Name))
	return nil
}

// Tools returns the tools currently served, by invocation name.
func (s *Server) Tools() []exthost.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]exthost.Tool, 0, len(s.tools))
	for _, r := range s.tools {
		out = append(out, r.tool)
	}
	return out
}

func (s *Server) lookup(name string) (exthost.Tool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.tools[name]
	return r.tool, ok
}

// InvalidSchemaError says a tool is left out because its inputSchema is not
// an object schema.
type InvalidSchemaError struct {
	Tool   string
	Reason string
}

func (e *InvalidSchemaError) Error() string {
	return fmt.Sprintf("tool %s is not served over MCP: its inputSchema %s", e.Tool, e.Reason)
}

// toolDefinition is the MCP form of t.
func toolDefinition(t exthost.Tool) (*sdk.Tool, error) {
	in, err := inputSchema(t)
	if err != nil {
		return nil, err
	}
	desc := t.Description
	switch t.ApprovalMode {
	case exthost.ApprovalNeedApproval:
		desc = appendNote(desc, NeedApprovalNote)
	case exthost.ApprovalNeedQuestions:
		desc = appendNote(desc, NeedQuestionsNote)
	}
	def := &sdk.Tool{
		Name:        t.Name,
		Title:       t.ExtensionName + ": " + t.ToolName,
		Description: desc,
		InputSchema: in,
		// Hints are claims; an extension tool may do anything, so none is
		// made beyond the title (readOnlyHint stays false).
		Annotations: &sdk.ToolAnnotations{Title: t.ExtensionName + ": " + t.ToolName},
		Meta: sdk.Meta{
			"spirit/extensionId": t.ExtensionID,
			"spirit/toolName":    t.ToolName,
		},
	}
	if t.ApprovalMode != "" {
		def.Meta["spirit/approvalMode"] = t.ApprovalMode
	}
	if t.ExecutionMode != "" {
		def.Meta["spirit/executionMode"] = t.ExecutionMode
	}
	if out, ok := objectSchema(t.OutputSchema); ok {
		def.OutputSchema = out
	}
	return def, nil
}

func appendNote(desc, note string) string {
	if desc == "" {
		return note
	}
	return desc + "\n\n" + note
}

// inputSchema returns the inputSchema of t as its bytes, so clients see
// the author's key order and number literals. MCP requires type object: a
// schema without a type gets "type":"object" as its first member, one of
// another type (or not an object) is refused.
func inputSchema(t exthost.Tool) (json.RawMessage, error) {
	raw := bytes.TrimSpace(t.InputSchema)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	var in map[string]any
	if err := json.Unmarshal(raw, &in); err != nil || in == nil {
		return nil, &InvalidSchemaError{Tool: t.Name, Reason: "is not a JSON object"}
	}
	switch typ, ok := in["type"]; {
	case !ok:
		rest := bytes.TrimSpace(raw[1:])
		if rest[0] != '}' {
			rest = append([]byte{','}, rest...)
		}
		return append([]byte(`{"type":"object"`), rest...), nil
	case typ != "object":
		return nil, &InvalidSchemaError{Tool: t.Name, Reason: fmt.Sprintf("has type %v, not object", typ)}
	}
	return json.RawMessage(raw), nil
}

// objectSchema returns raw when it is a schema of type object: MCP clients
// before 2025-11-25 accept no other outputSchema.
func objectSchema(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil || m["type"] != "object" {
		return nil, false
	}
	return raw, true
}

// middleware refreshes the tools before tools/list and sets the
// instructions of each initialize.
func (s *Server) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch method {
		case "tools/list":
			if err := s.Sync(ctx); err != nil {
				s.warn(err)
			}
		case "initialize":
			if err := s.Sync(ctx); err != nil {
				s.warn(err)
			}
			res, err := next(ctx, method, req)
			if r, ok := res.(*sdk.InitializeResult); ok && err == nil {
				r.Instructions = s.instructions(ctx)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// instructions is the aggregated <extensions> block.
func (s *Server) instructions(ctx context.Context) string {
	p, err := s.host.SystemPrompt(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "" // the client went away during initialize
		}
		s.warn(fmt.Errorf("collecting the extensions' system prompts: %w", err))
		return ""
	}
	for _, f := range p.Failures {
		s.warn(fmt.Errorf("system prompt of %s: %w", f.ExtensionID, f.Err))
	}
	return p.Block
}

// initialized starts a session: onSessionReset, then onSessionOpened.
func (s *Server) initialized(ctx context.Context, req *sdk.InitializedRequest) {
	name := ""
	if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
		name = p.ClientInfo.Name
		if p.ClientInfo.Version != "" {
			name += " " + p.ClientInfo.Version
		}
	}
	s.emit(exthost.Event{Type: "onSessionReset", Detail: map[string]any{"workspaceRoot": s.opts.WorkspaceRoot}})
	s.emit(exthost.Event{Type: "onSessionOpened", Detail: map[string]any{"sessionId": req.Session.ID(), "displayName": name}})
}

// emit queues ev; a full queue drops it with a warning rather than delay a call.
func (s *Server) emit(ev exthost.Event) {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	if s.evClosed {
		s.warn(fmt.Errorf("event %s dropped: the server is closing", ev.Type))
		return
	}
	select {
	case s.events <- ev:
	default:
		s.warn(fmt.Errorf("event %s dropped: too many events queued", ev.Type))
	}
}

// deliver sends the queued events in order until the queue is closed.
func (s *Server) deliver() {
	defer s.wg.Done()
	for ev := range s.events {
		failures, err := s.host.Emit(s.life, ev)
		if err != nil && s.life.Err() == nil {
			s.warn(fmt.Errorf("event %s: %w", ev.Type, err))
		}
		for _, f := range failures {
			s.warn(fmt.Errorf("event %s in %s: %w", ev.Type, f.ExtensionID, f.Err))
		}
	}
}

func newCallID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "call_" + hex.EncodeToString(b)
}
