// Package mcp serves the tools of installed Spirit Agent extensions to any
// Model Context Protocol client (Claude Code, Circle, Spirit Agent, Cursor…),
// over the official Go SDK, github.com/modelcontextprotocol/go-sdk. It runs
// every tool through a exthost.Host, so the runtime's rules hold for MCP
// clients too: gating, argument validation against inputSchema, timeouts,
// cancellation, process isolation and secret masking.
//
// Rules it keeps:
//
//   - tools/list gives exactly the runtime's exposed tools, under their
//     invocation names (spec §5.5), with description and inputSchema; an
//     outputSchema only when the manifest declares one of type object. A
//     tool whose inputSchema is not an object schema is left out and
//     reported. No tool claims readOnlyHint. A need-approval tool's
//     description says it asks for approval, a need-questions tool's that it
//     asks for an execution note.
//   - A tool failure of any kind (the handler threw, bad arguments, timeout,
//     crash, a declined approval) is an isError result the model can read;
//     only an unknown tool name and a cancelled call are protocol errors.
//   - notifications/cancelled cancels the call's context, which the runtime
//     passes to the extension as $/cancelRequest.
//   - Approval is asked from the user through MCP form elicitation when the
//     client supports it: a confirmation for need-approval tools, the
//     execution note for need-questions tools (passed to the tool as
//     questionsResult {"execution_note": …}). Without elicitation a
//     need-questions call fails and says why; a need-approval call fails too
//     unless the server was started with Options.Approve (the client's own
//     tool confirmation stands in).
//   - The aggregated <extensions> system prompt block (spec §5.8) is the
//     server's instructions, collected afresh at each initialize.
//   - Events: onSessionReset ({workspaceRoot}) then onSessionOpened
//     ({sessionId, displayName}) when a session is initialized; onToolCall
//     and onToolResult around each call with the reference's detail. They
//     are delivered in order by one goroutine and never delay a call.
//   - Installs and removes while serving are picked up: the tool list is
//     re-read before every tools/list and every PollInterval, and a change
//     sends notifications/tools/list_changed to every session.
//   - Only the stable, initialize-based protocol versions (up to 2025-11-25)
//     are offered, so every client gets a session, server-to-client
//     elicitation and list_changed notifications.
//   - Over stdio (NewStdioTransport) every incoming line is checked before
//     the SDK reads it: a line that is not one JSON-RPC 2.0 message (not
//     JSON or not UTF-8, over MaxFrameSize bytes or MaxFrameDepth levels, a
//     batch, an id that is not a string or an exact integer, params that
//     are not structured…) is answered with the JSON-RPC error -32700 or
//     -32600 and reported, and the session goes on, as over HTTP.
//   - The HTTP transport binds loopback addresses only and requires
//     "Authorization: Bearer <token>" with the token of {spiritDataDir}/mcp.token
//     (created with mode 0600 when missing); the SDK's DNS-rebinding
//     protection stays on.
//
// Nothing here prints: warnings go to the optional Reporter.
package mcp
