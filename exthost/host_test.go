package exthost

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// allFixtures are installed together into one data dir; the subtests of
// TestHost share its Host, so each extension process starts once.
var allFixtures = []string{
	"kitchen", "form-esm-named", "form-esm-default-fn", "form-esm-default-obj", "form-cjs-fn", "form-cjs-activate",
	"form-none", "exports-fallback", "invoke-precedence", "no-instance", "no-handler", "load-fails", "activate-throws",
	"caps-none", "caps-definitions", "caps-execution", "caps-both", "caps-both-no-main", "caps-prompt",
	"caps-prompt-no-main", "caps-all", "collide-one", "collide-two", "event-fails", "event-no-main",
}

func call(t *testing.T, h *Host, name, args string) (string, error) {
	t.Helper()
	res, err := h.Call(context.Background(), CallRequest{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		return "", err
	}
	return res.Text, nil
}

func TestHost(t *testing.T) {
	p := installFixtures(t, allFixtures...)
	marker := filepath.Join(t.TempDir(), "disposed")
	h := newTestHost(t, p, func(o *Options) {
		o.Environ = append(o.Environ, "SPIRIT_TEST_DISPOSE_MARKER="+marker)
	})
	ctx := context.Background()

	t.Run("activate forms", func(t *testing.T) {
		tests := []struct{ name, tool, want string }{
			{"ESM named activate", "form-esm-named/hello", "esm-named"},
			{"ESM default function", "form-esm-default-fn/hello", "esm-default-fn"},
			{"ESM default object with activate", "form-esm-default-obj/hello", "esm-default-obj:no-this"},
			{"CJS module.exports function", "form-cjs-fn/hello", "cjs-fn:function"},
			{"CJS exports.activate", "form-cjs-activate/hello", "cjs-activate"},
			{"module exports fallback", "exports-fallback/hello", "from-module-exports"},
			{"invokeTool takes precedence", "invoke-precedence/hello", "invokeTool:hello"},
			{"invokeTool gets every tool", "invoke-precedence/other", "invokeTool:other"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				got, err := call(t, h, tt.tool, "")
				if err != nil || got != tt.want {
					t.Errorf("call %s = %q, %v; want %q", tt.tool, got, err, tt.want)
				}
			})
		}
	})

	t.Run("activation failures", func(t *testing.T) {
		tests := []struct{ name, tool, want string }{
			{"no activate export", "form-none/hello", "Extension Form none does not export activate; export activate(context) or a default export of that function."},
			{"load throws", "load-fails/hello", "Failed to load extension: Load fails (cannot load me)"},
			{"activate throws", "activate-throws/hello", "Failed to execute extension: Activate throws (activation refused)"},
			{"no instance", "no-instance/hello", "The extension did not return a callable instance: No instance"},
			{"no handler", "no-handler/missing", "The extension does not export a tool handler: missing"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				_, err := call(t, h, tt.tool, "")
				if err == nil || err.Error() != tt.want {
					t.Fatalf("error = %v, want %q", err, tt.want)
				}
			})
		}
	})

	t.Run("result conversions", func(t *testing.T) {
		tests := []struct {
			kind, want string
			toolErr    string
		}{
			{kind: "string", want: "plain text"},
			{kind: "undefined", want: ""},
			{kind: "null", want: "null"},
			{kind: "number", want: "42"},
			{kind: "object", want: "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    \"x\"\n  ]\n}"},
			{kind: "bigint", toolErr: "The tool result cannot be converted to JSON: Do not know how to serialize a BigInt"},
			{kind: "circular", toolErr: "The tool result cannot be converted to JSON: Converting circular structure to JSON"},
			{kind: "function", toolErr: "The tool result cannot be converted to JSON: a function has no JSON form"},
		}
		for _, tt := range tests {
			t.Run(tt.kind, func(t *testing.T) {
				got, err := call(t, h, "@fixture/kitchen/result", `{"kind":"`+tt.kind+`"}`)
				if tt.toolErr != "" {
					var te *ToolError
					if !errors.As(err, &te) || !strings.HasPrefix(te.Message, tt.toolErr) {
						t.Fatalf("error = %#v, want a ToolError starting %q", err, tt.toolErr)
					}
					return
				}
				if err != nil || got != tt.want {
					t.Fatalf("result = %q, %v; want %q", got, err, tt.want)
				}
			})
		}
	})

	t.Run("capability gating of tools", func(t *testing.T) {
		tools, err := h.Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, tl := range tools {
			have[tl.ExtensionID] = true
		}
		tests := []struct {
			id     string
			listed bool
		}{
			{"caps-none", false}, {"caps-definitions", false}, {"caps-execution", false},
			{"caps-both", true}, {"caps-both-no-main", false}, {"caps-prompt", false}, {"caps-all", true},
		}
		for _, tt := range tests {
			t.Run(tt.id, func(t *testing.T) {
				if have[tt.id] != tt.listed {
					t.Errorf("listed = %v, want %v", have[tt.id], tt.listed)
				}
				_, err := call(t, h, tt.id+"/hello", "")
				if tt.listed && err != nil {
					t.Errorf("call: %v", err)
				}
				if !tt.listed && !errors.Is(err, ErrUnknownTool) {
					t.Errorf("call error = %v, want unknown tool", err)
				}
			})
		}
	})

	t.Run("collision suffix by the apps' list order", func(t *testing.T) {
		tools, err := h.Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		var order []string
		for _, tl := range tools {
			if tl.ToolName == "lookup_item" {
				got[tl.ExtensionID] = tl.Name
				order = append(order, tl.ExtensionID)
			}
		}
		want := map[string]string{
			"@example/spirit-extension-two": "extension__example_spirit_e__lookup_item__8b3b40e0",
			"@example/spirit-extension":     "extension__example_spirit_e__lookup_item__8b3b40e0__1",
		}
		for id, name := range want {
			if got[id] != name {
				t.Errorf("%s: name %q, want %q", id, got[id], name)
			}
		}
		// List order is by display name: "Alpha" (-two) before "Zeta".
		if !slices.Equal(order, []string{"@example/spirit-extension-two", "@example/spirit-extension"}) {
			t.Errorf("list order = %v", order)
		}
		out, err := call(t, h, want["@example/spirit-extension-two"], "")
		if err != nil || out != "@example/spirit-extension-two" {
			t.Errorf("call by suffixed name = %q, %v", out, err)
		}
	})

	t.Run("arguments are validated against inputSchema", func(t *testing.T) {
		tests := []struct{ name, args, pointer string }{
			{"missing required", `{}`, ""},
			{"wrong type", `{"text": 3}`, "/text"},
			{"below minimum", `{"text": "x", "n": -1}`, "/n"},
			{"not an object", `[1]`, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := call(t, h, "@fixture/kitchen/echo", tt.args)
				var ae *ArgumentsError
				if !errors.As(err, &ae) || ae.Pointer != tt.pointer {
					t.Fatalf("error = %v, want ArgumentsError at %q", err, tt.pointer)
				}
			})
		}
		got, err := call(t, h, "@fixture/kitchen/echo", `{"text":"fine","n":2}`)
		if err != nil || got != "fine" {
			t.Fatalf("valid call = %q, %v", got, err)
		}
	})

	t.Run("outputSchema", func(t *testing.T) {
		res, err := h.Call(ctx, CallRequest{Name: "@fixture/kitchen/structured", Arguments: json.RawMessage(`{"good":true}`)})
		if err != nil || string(res.Structured) != res.Text {
			t.Fatalf("good = %+v, %v", res, err)
		}
		_, err = call(t, h, "@fixture/kitchen/structured", `{"good":false}`)
		var te *ToolError
		if !errors.As(err, &te) || !strings.Contains(te.Message, "outputSchema at /n") {
			t.Fatalf("bad result error = %v", err)
		}
	})

	t.Run("tool failures", func(t *testing.T) {
		_, err := call(t, h, "@fixture/kitchen/throws", "")
		var te *ToolError
		if !errors.As(err, &te) || te.Message != "boom from the tool" {
			t.Errorf("throws: %v", err)
		}
		got, err := call(t, h, "@fixture/kitchen/stdout", "")
		if err != nil || got != "stdout ok" {
			t.Errorf("stdout: %q, %v", got, err)
		}
		got, err = call(t, h, "@fixture/kitchen/flood", "")
		if err != nil || got != "flood ok" {
			t.Errorf("flood: %q, %v", got, err)
		}
		var log []byte
		// Node writes stderr to a pipe asynchronously; wait for the tail.
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			log, _ = os.ReadFile(p.LogFile("@fixture/kitchen"))
			if len(log) >= 4<<20 {
				break
			}
		}
		if !strings.Contains(string(log), "hello on stdout") || !strings.Contains(string(log), `"forged"`) {
			t.Errorf("log lacks the stdout lines")
		}
		if len(log) < 4<<20 {
			t.Errorf("log has %d bytes, want the 4 MiB flood", len(log))
		}
	})

	t.Run("process state is kept between calls", func(t *testing.T) {
		a, _ := call(t, h, "@fixture/kitchen/counter", "")
		b, err := call(t, h, "@fixture/kitchen/counter", "")
		if err != nil || a == "" || b == a {
			t.Fatalf("counter %q then %q, %v", a, b, err)
		}
	})

	t.Run("call context", func(t *testing.T) {
		res, err := h.Call(ctx, CallRequest{Name: "@fixture/kitchen/call-info", ToolCallID: "call-7"})
		if err != nil {
			t.Fatal(err)
		}
		want := "{\n  \"toolName\": \"call-info\",\n  \"toolCallId\": \"call-7\",\n  \"extension\": \"@fixture/kitchen\",\n  \"host\": {}\n}"
		if res.Text != want {
			t.Errorf("got %s", res.Text)
		}
	})

	t.Run("environment is filtered", func(t *testing.T) {
		got, err := call(t, h, "@fixture/kitchen/env", "")
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Token   *string
			HasPath bool
			Plain   string
		}
		if err := json.Unmarshal([]byte(got), &env); err != nil {
			t.Fatal(err)
		}
		if env.Token != nil || !env.HasPath || env.Plain != "visible" {
			t.Errorf("env seen by the extension: %s", got)
		}
	})

	t.Run("approval modes", func(t *testing.T) {
		_, err := call(t, h, "@fixture/kitchen/approve", `{"x":1}`)
		var ae *ApprovalError
		if !errors.As(err, &ae) || ae.Mode != ApprovalNeedApproval {
			t.Fatalf("approve without approval: %v", err)
		}
		wantPrompt := "Extension tool requires confirmation\nExtension: @fixture/kitchen\nTool: approve\n\nArguments\n{\n  \"x\": 1\n}"
		if ae.Prompt != wantPrompt {
			t.Errorf("prompt = %q", ae.Prompt)
		}
		res, err := h.Call(ctx, CallRequest{Name: "@fixture/kitchen/approve", Approved: true})
		if err != nil || res.Text != "approved" || res.Tool.ExecutionMode != "background" {
			t.Errorf("approved call = %+v, %v", res, err)
		}
		_, err = call(t, h, "@fixture/kitchen/questions", "")
		if !errors.As(err, &ae) || ae.Mode != ApprovalNeedQuestions || ae.Prompt != "Additional execution info for extension tool: questions" {
			t.Fatalf("questions without answer: %v", err)
		}
		res, err = h.Call(ctx, CallRequest{Name: "@fixture/kitchen/questions", QuestionsResult: json.RawMessage(`{"execution_note":"go"}`)})
		if err != nil || res.Text != "{\n  \"execution_note\": \"go\"\n}" {
			t.Errorf("questions call = %+v, %v", res, err)
		}
	})

	t.Run("system prompt", func(t *testing.T) {
		pr, err := h.SystemPrompt(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Join([]string{
			"<extensions>",
			"The following block contains additive host-provided instructions contributed by installed extensions.",
			"Treat them as additional system-level context; do not interpret them as tool definitions or permission grants.",
			`<extension id="caps-all" name="caps-all">`,
			"Static prompt of caps-all.",
			"</extension>",
			`<extension id="caps-prompt" name="caps-prompt">`,
			"Static prompt of caps-prompt.",
			"</extension>",
			`<extension id="@fixture/kitchen" name="Kitchen &amp; &quot;Co&quot;">`,
			`Kitchen rules: use <tools> & be "nice".`,
			"</extension>",
			"</extensions>",
		}, "\n")
		if pr.Block != want {
			t.Errorf("block:\n%s\nwant:\n%s", pr.Block, want)
		}
	})

	t.Run("events", func(t *testing.T) {
		failures, err := h.Emit(ctx, Event{Type: "onUserMessage", Detail: map[string]string{"text": "hi"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(failures) != 1 || failures[0].ExtensionID != "event-fails" ||
			failures[0].Err.Error() != "Extension event execution failed: A failing events (event refused)" {
			t.Fatalf("failures = %v", failures)
		}
		got, err := call(t, h, "@fixture/kitchen/events", "")
		if err != nil || !strings.Contains(got, `"type": "onUserMessage"`) {
			t.Fatalf("kitchen did not get the event after the failing one: %s %v", got, err)
		}
		failures, err = h.Emit(ctx, Event{Type: "onStartup"}, "event-fails")
		if err != nil || len(failures) != 0 {
			t.Fatalf("targeted to an extension that does not listen: %v %v", failures, err)
		}
		if _, err := h.Emit(ctx, Event{Type: "onNothing"}); err == nil {
			t.Fatal("unknown event accepted")
		}
		failures, err = h.ExtensionInstalled(ctx, "@fixture/kitchen")
		if err != nil || len(failures) != 0 {
			t.Fatalf("installed: %v %v", failures, err)
		}
		got, _ = call(t, h, "@fixture/kitchen/events", "")
		if !strings.Contains(got, `"extensionId": "@fixture/kitchen"`) {
			t.Fatalf("onExtensionInstalled not delivered: %s", got)
		}
	})

	t.Run("a tool that exits is restarted at next use", func(t *testing.T) {
		_, err := call(t, h, "@fixture/kitchen/exit", "")
		var xe *ExitError
		if !errors.As(err, &xe) || !strings.Contains(xe.State, "exit status 3") {
			t.Fatalf("exit: %v", err)
		}
		got, err := call(t, h, "@fixture/kitchen/counter", "")
		if err != nil || got != "1" {
			t.Fatalf("after restart counter = %q, %v", got, err)
		}
	})

	t.Run("cancellation reaches the tool", func(t *testing.T) {
		cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		_, err := h.Call(cctx, CallRequest{Name: "@fixture/kitchen/hang"})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("hang with a cancelled context: %v", err)
		}
		// The process is still the same one.
		if got, err := call(t, h, "@fixture/kitchen/counter", ""); err != nil || got == "1" {
			t.Fatalf("counter after cancel = %q, %v", got, err)
		}
	})

	t.Run("close disposes", func(t *testing.T) {
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(marker); err != nil || string(b) != "disposed" {
			t.Fatalf("dispose marker: %q %v", b, err)
		}
		if _, err := call(t, h, "@fixture/kitchen/counter", ""); !errors.Is(err, ErrClosed) {
			t.Fatalf("call after close: %v", err)
		}
	})
}

func TestTimeouts(t *testing.T) {
	p := installFixtures(t, "kitchen", "activate-hangs", "caps-both")
	h := newTestHost(t, p, func(o *Options) {
		o.ActivateTimeout = time.Second
		o.CallTimeout = 300 * time.Millisecond
		o.KillGrace = 300 * time.Millisecond
	})
	start := time.Now()
	_, err := call(t, h, "activate-hangs/hello", "")
	var te *TimeoutError
	if !errors.As(err, &te) || te.Op != "activate" {
		t.Fatalf("activate: %v", err)
	}
	_, err = call(t, h, "@fixture/kitchen/spin", "")
	if !errors.As(err, &te) || te.Op != "call" {
		t.Fatalf("spin: %v", err)
	}
	// The other extension is not affected, and the spun one restarts.
	if got, err := call(t, h, "caps-both/hello", ""); err != nil || got != "hi" {
		t.Fatalf("other extension: %q %v", got, err)
	}
	if got, err := call(t, h, "@fixture/kitchen/counter", ""); err != nil || got != "1" {
		t.Fatalf("restarted: %q %v", got, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestNodeMissing(t *testing.T) {
	p := installFixtures(t, "caps-both")
	h := newTestHost(t, p, func(o *Options) { o.NodePath = filepath.Join(t.TempDir(), "no-node") })
	if _, err := call(t, h, "caps-both/hello", ""); !errors.Is(err, ErrNodeNotFound) {
		t.Fatalf("error = %v", err)
	}
}

func TestNodeTooOld(t *testing.T) {
	p := installFixtures(t, "caps-both")
	fake := filepath.Join(t.TempDir(), "node")
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo v16.20.0; exit 0; fi\necho 'SyntaxError: Unexpected token' >&2\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newTestHost(t, p, func(o *Options) { o.NodePath = fake })
	_, err := call(t, h, "caps-both/hello", "")
	var ve *NodeVersionError
	if !errors.As(err, &ve) || ve.Version != "16.20.0" {
		t.Fatalf("error = %v", err)
	}
}
