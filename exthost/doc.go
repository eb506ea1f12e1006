// Package runtime is spirit's extension host: it runs installed extensions
// and gives an agent their tools, system prompts and events.
//
// Rules it keeps:
//
//   - Each active extension runs in its own Node.js (18 or later) child,
//     started from a runner script embedded in the binary. Host and runner
//     speak JSON-RPC 2.0, one JSON message per line, over two dedicated
//     pipes (fd 3 host→runner, fd 4 runner→host); the extension's stdout and
//     stderr go to its log file, .spirit/logs/<b64url(id)>.log.
//   - The child's environment drops every variable whose name contains KEY,
//     TOKEN, SECRET, PASSWORD, CREDENTIAL or AUTH. Secret values an extension
//     was given are masked as *** in tool results, errors and its log.
//   - Gating is done here, not in the runner: tools are listed and callable
//     only with both tool-definitions and tool-execution and a main; a system
//     prompt only with system-prompt and a main; events only for the listed
//     activationEvents; secrets only for declared slots; settings against
//     settingsSchema with the reference's messages.
//   - Arguments are validated against inputSchema before the extension sees
//     them; a result is checked against outputSchema when there is one.
//   - Every exchange has a timeout (activate 10 s, call 60 s, dispose 2 s by
//     default). A caller's cancellation is passed on as $/cancelRequest. A
//     timed-out extension is stopped (SIGTERM, then SIGKILL after 5 s); a
//     crashed or stopped one is started again at its next use. One
//     extension's failure never reaches another.
//   - Model-facing tool names are the reference's, to the byte (spec §5.5);
//     collision suffixes follow the apps' list order (display name, then id).
//
// A Host is safe for concurrent use.
package exthost
