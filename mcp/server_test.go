package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/paths"
)

// transports are the ways the scenarios reach a server.
var transports = []struct {
	name string
	env  func(t *testing.T) *env
}{
	{"memory", func(t *testing.T) *env { return memoryEnv(t, serverOptions{}) }},
	{"http", func(t *testing.T) *env { return httpEnv(t, serverOptions{}) }},
	{"binary-stdio", binaryEnv},
}

// TestScenarios drives the server with the Go SDK's client over each
// transport: list, call, a failing tool, a cancelled call, elicitation,
// list_changed after an install, events.
func TestScenarios(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			e := tr.env(t)
			t.Run("list", func(t *testing.T) { testList(t, e) })
			t.Run("call", func(t *testing.T) { testCall(t, e) })
			t.Run("cancel", func(t *testing.T) { testCancel(t, e) })
			t.Run("elicitation", func(t *testing.T) { testElicitation(t, e) })
			t.Run("events", func(t *testing.T) { testEvents(t, e) })
			// Last: it installs and removes an extension.
			t.Run("list_changed", func(t *testing.T) { testListChanged(t, e) })
		})
	}
}

func testList(t *testing.T, e *env) {
	cs := e.connect(t, nil)
	init := cs.InitializeResult()
	if !strings.Contains(init.Instructions, "<extension id=\"@fixture/mcp-tools\" name=\"MCP Tools\">\nUse the echo tool to repeat text.\n</extension>") ||
		!strings.HasPrefix(init.Instructions, "<extensions>\n") {
		t.Errorf("instructions = %q", init.Instructions)
	}
	// The Go client asks for the newest protocol first; the server answers
	// with the newest initialize-based one.
	if init.ProtocolVersion != ProtocolVersions()[0] {
		t.Errorf("protocol version %q, want %q", init.ProtocolVersion, ProtocolVersions()[0])
	}
	if init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged {
		t.Errorf("tools capability = %+v, want listChanged", init.Capabilities.Tools)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
		if tl.Annotations != nil && tl.Annotations.ReadOnlyHint {
			t.Errorf("%s claims readOnlyHint", tl.Name)
		}
	}
	want := []string{"approve", "echo", "fail", "hang", "questions", "secret", "state", "structured"}
	if len(res.Tools) != len(want) {
		t.Errorf("%d tools, want %d", len(res.Tools), len(want))
	}
	for _, w := range want {
		if byName[toolName(w)] == nil {
			t.Errorf("tool %s (%s) not listed", toolName(w), w)
		}
	}
	tests := []struct {
		name, tool, desc string
		in               string
		out              string
	}{
		{name: "plain", tool: "echo", desc: "Repeats the text.",
			in: `{"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}`},
		{name: "need-approval", tool: "approve", desc: "Needs approval.\n\n" + NeedApprovalNote, in: `{"type":"object"}`},
		{name: "need-questions", tool: "questions", desc: "Needs an execution note.\n\n" + NeedQuestionsNote, in: `{"type":"object"}`},
		{name: "outputSchema", tool: "structured", desc: "Returns a structured result.", in: `{"type":"object"}`,
			out: `{"properties":{"n":{"type":"integer"}},"required":["n"],"type":"object"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := byName[toolName(tc.tool)]
			if tl == nil {
				t.Fatal("not listed")
			}
			if tl.Description != tc.desc {
				t.Errorf("description = %q, want %q", tl.Description, tc.desc)
			}
			if got := jsonString(t, tl.InputSchema); got != tc.in {
				t.Errorf("inputSchema = %s, want %s", got, tc.in)
			}
			got := ""
			if tl.OutputSchema != nil {
				got = jsonString(t, tl.OutputSchema)
			}
			if got != tc.out {
				t.Errorf("outputSchema = %s, want %s", got, tc.out)
			}
		})
	}
}

func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func testCall(t *testing.T, e *env) {
	cs := e.connect(t, nil)
	tests := []struct {
		name      string
		tool      string
		args      any
		isError   bool
		text      string
		structure string
	}{
		{name: "echo", tool: "echo", args: map[string]any{"text": "hello"}, text: "hello"},
		{name: "throws", tool: "fail", args: map[string]any{}, isError: true, text: "the fail tool failed"},
		{name: "missing argument", tool: "echo", args: map[string]any{}, isError: true,
			text: "invalid arguments for " + toolName("echo") + " at /: "},
		{name: "wrong type", tool: "echo", args: map[string]any{"text": 3}, isError: true,
			text: "invalid arguments for " + toolName("echo") + " at /text: "},
		{name: "no arguments", tool: "state", args: nil, text: `"aborted"`},
		{name: "structured", tool: "structured", args: map[string]any{}, text: "\"n\": 7", structure: `{"n":7}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, tc.tool, tc.args)
			got := text(t, res)
			if res.IsError != tc.isError || !strings.Contains(got, tc.text) {
				t.Errorf("result isError=%v %q, want isError=%v containing %q", res.IsError, got, tc.isError, tc.text)
			}
			s := ""
			if res.StructuredContent != nil {
				s = jsonString(t, res.StructuredContent)
			}
			if s != tc.structure {
				t.Errorf("structuredContent = %s, want %s", s, tc.structure)
			}
		})
	}
	t.Run("unknown tool", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "extension__nope__x__00000000", Arguments: map[string]any{}})
		if err == nil || !strings.Contains(err.Error(), "extension__nope__x__00000000") {
			t.Errorf("err = %v, want an unknown tool error", err)
		}
	})
}

func testCancel(t *testing.T, e *env) {
	cs := e.connect(t, nil)
	before := state(t, cs).Aborted
	// The hang tool connects here once it waits for the cancellation.
	started, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer started.Close()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: toolName("hang"), Arguments: map[string]any{"notify": started.Addr().String()}})
		errc <- err
	}()
	accepted := make(chan error, 1)
	go func() {
		c, err := started.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	select {
	case err := <-accepted:
		if err != nil {
			t.Fatal(err)
		}
	case err := <-errc:
		t.Fatalf("the hanging call returned before it was cancelled: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the hang tool did not start")
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled call: err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
	waitFor(t, 10*time.Second, "the extension to see the cancellation", func() bool {
		return state(t, cs).Aborted == before+1
	})
	// The extension is still usable.
	if got := text(t, call(t, cs, "echo", map[string]any{"text": "after"})); got != "after" {
		t.Errorf("echo after a cancel = %q", got)
	}
}

func testElicitation(t *testing.T, e *env) {
	type answer struct {
		action string
		note   any
	}
	tests := []struct {
		name    string
		tool    string
		answer  *answer // nil: the client has no elicitation
		isError bool
		text    string
		message string // the elicitation message starts with it
	}{
		{name: "note", tool: "questions", answer: &answer{"accept", "go slowly"}, text: "\"execution_note\": \"go slowly\"",
			message: "Additional execution info for extension tool: questions"},
		{name: "empty note", tool: "questions", answer: &answer{"accept", nil}, text: "\"execution_note\": \"\""},
		{name: "note declined", tool: "questions", answer: &answer{"decline", nil}, isError: true, text: "The user declined to run"},
		{name: "note without elicitation", tool: "questions", isError: true, text: "does not support elicitation"},
		{name: "approved", tool: "approve", answer: &answer{"accept", nil}, text: "approved",
			message: "Extension tool requires confirmation\nExtension: @fixture/mcp-tools\nTool: approve\n\nArguments\n{\n  \"x\": 1\n}"},
		{name: "approval cancelled", tool: "approve", answer: &answer{"cancel", nil}, isError: true, text: "The user declined to run"},
		{name: "approval without elicitation", tool: "approve", isError: true, text: "start the server with --yes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts *sdk.ClientOptions
			var asked []string
			if tc.answer != nil {
				opts = &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					asked = append(asked, req.Params.Message)
					res := &sdk.ElicitResult{Action: tc.answer.action}
					if tc.answer.action == "accept" {
						res.Content = map[string]any{}
						if tc.answer.note != nil {
							res.Content[executionNoteKey] = tc.answer.note
						}
					}
					return res, nil
				}}
			}
			cs := e.connect(t, opts)
			res := call(t, cs, tc.tool, map[string]any{"x": 1})
			got := text(t, res)
			if res.IsError != tc.isError || !strings.Contains(got, tc.text) {
				t.Errorf("result isError=%v %q, want isError=%v containing %q", res.IsError, got, tc.isError, tc.text)
			}
			if tc.answer != nil && len(asked) != 1 {
				t.Fatalf("asked %d times, want once", len(asked))
			}
			if tc.message != "" && !strings.HasPrefix(asked[0], tc.message) {
				t.Errorf("asked %q, want %q", asked[0], tc.message)
			}
		})
	}
}

func testEvents(t *testing.T, e *env) {
	cs := e.connect(t, nil)
	mark := fmt.Sprintf("evt-%d", time.Now().UnixNano())
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"echo", map[string]any{"text": mark + "-1"}},
		{"fail", map[string]any{}},
		{"echo", map[string]any{"text": mark + "-2"}},
	} {
		call(t, cs, c.tool, c.args)
	}
	type want struct {
		typ, tool string
		failed    bool
		output    string
	}
	// Events are delivered in order, so those of the three calls follow
	// one another (other sessions' events may come between).
	seq := []want{
		{"onToolCall", toolName("echo"), false, ""},
		{"onToolResult", toolName("echo"), false, mark + "-1"},
		{"onToolCall", toolName("fail"), false, ""},
		{"onToolResult", toolName("fail"), true, "the fail tool failed"},
		{"onToolCall", toolName("echo"), false, ""},
		{"onToolResult", toolName("echo"), false, mark + "-2"},
	}
	var st fixtureState
	var got []want
	waitFor(t, 10*time.Second, "the events of the calls", func() bool {
		st = state(t, cs)
		got = nil
		start := -1
		for k, ev := range st.Events {
			if ev.Type == "onToolResult" && ev.Output == mark+"-1" {
				start = k - 1
				break
			}
		}
		if start < 0 {
			return false
		}
		for _, ev := range st.Events[start:] {
			f := ev.Failed != nil && *ev.Failed
			got = append(got, want{ev.Type, ev.ToolName, f, ev.Output})
		}
		return len(got) >= len(seq) && got[len(seq)-1].output == mark+"-2"
	})
	for i, w := range seq {
		g := got[i]
		if g.typ != w.typ || g.tool != w.tool || g.failed != w.failed || !strings.Contains(g.output, w.output) {
			t.Errorf("event %d = %+v, want %+v", i, g, w)
		}
	}
	opened, reset := false, false
	for _, ev := range st.Events {
		opened = opened || ev.Type == "onSessionOpened" && ev.DisplayName == "test-client v1"
		reset = reset || ev.Type == "onSessionReset"
	}
	if !opened || !reset {
		t.Errorf("onSessionOpened (displayName %q) %v, onSessionReset %v in %+v", "test-client v1", opened, reset, st.Events)
	}
}

func testListChanged(t *testing.T, e *env) {
	changed := make(chan struct{}, 16)
	cs := e.connect(t, &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	ping := exthost.BaseInvocationName(lateID, "ping")
	listed := func() []string {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	if slices.Contains(listed(), ping) {
		t.Fatal("ping listed before the install")
	}
	installFixture(t, e.p, "late-ext")
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after an install")
	}
	if !slices.Contains(listed(), ping) {
		t.Fatalf("ping not listed after the install: %v", listed())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: ping, Arguments: map[string]any{}})
	if err != nil || res.IsError || text(t, res) != "pong" {
		t.Fatalf("ping = %v (%s), %v", res, text(t, res), err)
	}
	for len(changed) > 0 {
		<-changed
	}
	if err := os.RemoveAll(e.p.PackageDir(lateID)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after a remove")
	}
	if slices.Contains(listed(), ping) {
		t.Fatal("ping still listed after the remove")
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	e := memoryEnv(t, serverOptions{callTimeout: 500 * time.Millisecond})
	cs := e.connect(t, nil)
	res := call(t, cs, "hang", map[string]any{})
	if got := text(t, res); !res.IsError || !strings.Contains(got, "did not finish call within 500ms") {
		t.Errorf("result isError=%v %q, want a timeout error", res.IsError, got)
	}
	// The extension is started again at a later use. (The runtime stops
	// the timed-out process in the background, so the very next call may
	// still reach it and fail with an ExitError: a runtime race, reported.)
	waitFor(t, 5*time.Second, "echo to work again after the timeout", func() bool {
		res := call(t, cs, "echo", map[string]any{"text": "again"})
		return !res.IsError && text(t, res) == "again"
	})
}

func TestApproveWithoutElicitation(t *testing.T) {
	t.Parallel()
	e := memoryEnv(t, serverOptions{approve: true})
	cs := e.connect(t, nil)
	if res := call(t, cs, "approve", map[string]any{}); res.IsError || text(t, res) != "approved" {
		t.Errorf("approve = %v %q, want approved", res.IsError, text(t, res))
	}
	// Approve never stands in for an execution note.
	if res := call(t, cs, "questions", map[string]any{}); !res.IsError {
		t.Errorf("questions without elicitation = %q, want an error", text(t, res))
	}
}

func TestSecretMasked(t *testing.T) {
	t.Parallel()
	e := memoryEnv(t, serverOptions{})
	ext, err := e.host.Extension(toolsID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.host.Secrets().Set(ext.Manifest, "api-key", "s3cr3t-value-42"); err != nil {
		t.Fatal(err)
	}
	cs := e.connect(t, nil)
	res := call(t, cs, "secret", map[string]any{})
	if got := text(t, res); got != "the secret is ***" {
		t.Errorf("secret tool = %q, want the value masked", got)
	}
}

func TestInvalidInputSchemaLeftOut(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		ok     bool
		want   string
	}{
		{name: "object", schema: `{"type":"object"}`, ok: true, want: `{"type":"object"}`},
		{name: "no type", schema: `{"properties":{"a":{"type":"string"}}}`, ok: true, want: `{"type":"object","properties":{"a":{"type":"string"}}}`},
		{name: "empty", schema: ` { } `, ok: true, want: `{"type":"object"}`},
		{name: "bytes kept", schema: `{"type":"object","properties":{"z":{"type":"number","minimum":1.5,"maximum":1000},"a":{"type":"string"}},"required":["z"]}`, ok: true,
			want: `{"type":"object","properties":{"z":{"type":"number","minimum":1.5,"maximum":1000},"a":{"type":"string"}},"required":["z"]}`},
		{name: "absent", schema: ``, ok: true, want: `{"type":"object"}`},
		{name: "null", schema: `null`, ok: true, want: `{"type":"object"}`},
		{name: "array type", schema: `{"type":"array"}`},
		{name: "not an object", schema: `[1]`},
		{name: "string", schema: `"x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			def, err := toolDefinition(exthost.Tool{Name: "extension__a__b__12345678", ToolName: "b", InputSchema: json.RawMessage(tc.schema)})
			if !tc.ok {
				var ise *InvalidSchemaError
				if !errors.As(err, &ise) {
					t.Fatalf("err = %v, want *InvalidSchemaError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := jsonString(t, def.InputSchema); got != tc.want {
				t.Errorf("inputSchema = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestOutputSchemaOnlyObjects(t *testing.T) {
	tests := []struct {
		name, schema string
		kept         bool
	}{
		{"object", `{"type":"object","properties":{"z":{},"a":{"minimum":1.5}}}`, true},
		{"array", `{"type":"array"}`, false},
		{"no type", `{"properties":{}}`, false},
		{"absent", ``, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			def, err := toolDefinition(exthost.Tool{Name: "n", OutputSchema: json.RawMessage(tc.schema)})
			if err != nil {
				t.Fatal(err)
			}
			if (def.OutputSchema != nil) != tc.kept {
				t.Errorf("outputSchema = %v, kept want %v", def.OutputSchema, tc.kept)
			}
			if tc.kept && jsonString(t, def.OutputSchema) != tc.schema {
				t.Errorf("outputSchema = %s, want the bytes %s", jsonString(t, def.OutputSchema), tc.schema)
			}
		})
	}
}

func TestSDKRefusalIsAWarning(t *testing.T) {
	s := &Server{srv: sdk.NewServer(&sdk.Implementation{Name: "t"}, nil)}
	def, err := toolDefinition(exthost.Tool{Name: "extension__a__b__12345678",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"X-A"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	var ise *InvalidSchemaError
	if err := s.addTool(def); !errors.As(err, &ise) || !strings.Contains(err.Error(), "refused by the MCP SDK") {
		t.Errorf("addTool = %v, want an *InvalidSchemaError", err)
	}
}

func TestNewNeedsHost(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Fatal("New without a Host succeeded")
	}
}

func TestBrokenExtensionDoesNotStopServer(t *testing.T) {
	t.Parallel()
	p := paths.New(t.TempDir(), paths.HostCLI)
	installFixture(t, p, "tools-ext")
	// A package dir without a readable manifest is listed as broken.
	if err := os.MkdirAll(p.PackageDir("@fixture/broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.PackageDir("@fixture/broken")+"/package.json", []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, _ := newServer(t, p, serverOptions{})
	if n := len(s.Tools()); n != 8 {
		t.Errorf("%d tools, want the 8 of the working extension", n)
	}
}
