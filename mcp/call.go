package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spiritagents/spirit/exthost"
)

// Texts of calls that do not reach the tool.
const (
	msgDeclined = "The user declined to run %s."
	msgNoAsk    = "%s needs the user's %s before it runs, and this MCP client cannot ask for it: it does not support elicitation."
)

// executionNoteKey is the id of the reference's only need-questions question.
const executionNoteKey = "execution_note"

// handler returns the tools/call handler of the tool named name.
func (s *Server) handler(name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return s.call(ctx, req, name)
	}
}

func (s *Server) call(ctx context.Context, req *sdk.CallToolRequest, name string) (*sdk.CallToolResult, error) {
	t, ok := s.lookup(name)
	if !ok {
		return nil, &exthost.UnknownToolError{Name: name}
	}
	cr := callRequest(t, req.Params.Arguments)
	if res := s.askUser(ctx, req, t, &cr); res != nil {
		return res, nil
	}
	return s.run(ctx, t, cr, false)
}

// callRequest is the host call of t with the raw arguments of tools/call.
func callRequest(t exthost.Tool, raw json.RawMessage) exthost.CallRequest {
	return exthost.CallRequest{Name: t.Name, Arguments: callArguments(raw), ToolCallID: newCallID()}
}

// callArguments is what a tool is called with for the raw arguments of
// tools/call: an absent or null value is the empty object.
func callArguments(raw json.RawMessage) json.RawMessage {
	args := json.RawMessage(bytes.TrimSpace(raw))
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = json.RawMessage("{}")
	}
	return args
}

// asks reports whether calling t asks the user first (askUser has work).
func asks(t exthost.Tool) bool {
	return t.ApprovalMode == exthost.ApprovalNeedApproval || t.ApprovalMode == exthost.ApprovalNeedQuestions
}

// run calls the tool t with cr, the user asked already, between its
// onToolCall and onToolResult events. A failure of the tool is a result
// with IsError; the error is a cancelled ctx or a tool gone from the host.
// The host call runs here when direct (the caller is a long-lived
// goroutine already), else on one of the callers.
func (s *Server) run(ctx context.Context, t exthost.Tool, cr exthost.CallRequest, direct bool) (*sdk.CallToolResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	request := toolRequest(t, cr.Arguments)
	s.emit(exthost.Event{Type: "onToolCall", Detail: map[string]any{
		"toolCallId": cr.ToolCallID, "toolName": t.Name, "request": request,
	}})
	var res *exthost.Result
	var err error
	if direct {
		res, err = s.host.Call(ctx, cr)
	} else {
		res, err = s.callers.call(ctx, s.host, cr)
	}
	out, failed := "", err != nil
	if err == nil {
		out = res.Text
	} else {
		out = err.Error()
	}
	if ctx.Err() != nil && failed {
		out = "cancelled"
	}
	s.emit(exthost.Event{Type: "onToolResult", Detail: map[string]any{
		"toolCallId": cr.ToolCallID, "toolName": t.Name, "output": out, "failed": failed, "request": request,
	}})
	switch {
	case err == nil:
		return success(res), nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, exthost.ErrUnknownTool):
		return nil, err
	}
	return failure(err.Error()), nil
}

// askUser asks the user what t's approval mode needs and fills cr. It
// returns the result to give instead of running the tool, or nil to run it.
func (s *Server) askUser(ctx context.Context, req *sdk.CallToolRequest, t exthost.Tool, cr *exthost.CallRequest) *sdk.CallToolResult {
	switch t.ApprovalMode {
	case exthost.ApprovalNeedApproval:
		if !canElicit(req) {
			if s.opts.Approve {
				cr.Approved = true
				return nil
			}
			return failure(fmt.Sprintf(msgNoAsk, t.Name, "approval") +
				" Use a client with elicitation, or start the server with --yes to let the client's own tool confirmation stand in.")
		}
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{
			Mode:            "form",
			Message:         exthost.ApprovalPrompt(t, cr.Arguments),
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
		})
		if err != nil {
			return failure(fmt.Sprintf("asking the user to approve %s failed: %v", t.Name, err))
		}
		if res.Action != "accept" {
			return failure(fmt.Sprintf(msgDeclined, t.Name))
		}
		cr.Approved = true
	case exthost.ApprovalNeedQuestions:
		if !canElicit(req) {
			return failure(fmt.Sprintf(msgNoAsk, t.Name, "execution note"))
		}
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{
			Mode:    "form",
			Message: exthost.QuestionsTitle(t),
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					executionNoteKey: map[string]any{"type": "string", "title": "Additional execution notes"},
				},
			},
		})
		if err != nil {
			return failure(fmt.Sprintf("asking the user for the execution note of %s failed: %v", t.Name, err))
		}
		if res.Action != "accept" {
			return failure(fmt.Sprintf(msgDeclined, t.Name))
		}
		note, _ := res.Content[executionNoteKey].(string)
		cr.QuestionsResult, _ = json.Marshal(map[string]string{executionNoteKey: note})
	}
	return nil
}

// canElicit says whether the calling client supports form elicitation.
func canElicit(req *sdk.CallToolRequest) bool {
	p := req.Session.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// toolRequest is the reference's request object of an extension tool call,
// as events carry it.
func toolRequest(t exthost.Tool, args json.RawMessage) map[string]any {
	r := map[string]any{
		"name":         "extension_tool",
		"extension_id": t.ExtensionID,
		"tool_name":    t.ToolName,
		"arguments":    args,
	}
	if t.ApprovalMode != "" {
		r["approval_mode"] = t.ApprovalMode
	}
	if t.ExecutionMode != "" {
		r["execution_mode"] = t.ExecutionMode
	}
	return r
}

func success(res *exthost.Result) *sdk.CallToolResult {
	out := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Text}}}
	if len(res.Structured) > 0 {
		var obj map[string]any
		if err := json.Unmarshal(res.Structured, &obj); err == nil && obj != nil {
			out.StructuredContent = json.RawMessage(res.Structured)
		}
	}
	return out
}

func failure(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}
