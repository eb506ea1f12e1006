#!/usr/bin/env bash
# MCP tools/call over stdio, side by side in one run, alternating rounds:
#   spirit   `spirit mcp serve` serving the echo tool of an installed extension
#            (testdata/mcp/bench/echo-ext), which runs in Node in its sandbox
#   ts-sdk   a Node server on @modelcontextprotocol/sdk's McpServer with the
#            same echo tool (testdata/mcp/bench/ts-echo-server.mjs)
# Two clients drive both servers, each in its own run of alternating rounds:
#   mcpload's own (Go, pre-encoded lines), and the TypeScript SDK's Client over
#   its StdioClientTransport (testdata/mcp/bench/ts-client.mjs, mcpload
#   -ts-client), the client most MCP hosts are built on.
# The load generator (internal/mcpload) starts each server, initializes, warms
# up, then times CALLS calls sequentially (one in flight) and CALLS calls with
# 8 requests in flight on the one stdio session (8 concurrent callers of one
# client: what the TypeScript server can be given too, one process). Prints
# min/median/max calls/s of each phase, the sequential p50, the CPU of each
# server (with its children) per call and the ratios spirit/ts-sdk.
# Goals: spirit >= 2,500 calls/s sequential and >= 8,000/s with 8 in flight.
# ROUNDS (default 8; every other round runs the servers in reverse order),
# CALLS (default 4000). BASE=path/to/an/older/spirit adds it as a third
# server. The TypeScript SDK is installed once, pinned, into .cache/mcp-bench
# (npm install --no-save).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
ROUNDS=${ROUNDS:-8}
CALLS=${CALLS:-4000}
SDK_VERSION=1.32.2
ZOD_VERSION=3.25.76
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/mcpload" ./internal/mcpload
go build -o "$work/spirit" ./cmd/spirit

sdk=$repo/.cache/mcp-bench
if ! grep -qs "\"version\": \"$SDK_VERSION\"" "$sdk/node_modules/@modelcontextprotocol/sdk/package.json"; then
  mkdir -p "$sdk"
  (cd "$sdk" && npm install --no-save --no-audit --no-fund --no-package-lock \
    "@modelcontextprotocol/sdk@$SDK_VERSION" "zod@$ZOD_VERSION" >/dev/null)
fi

export SPIRIT_AGENT_DATA_DIR=$work/data
"$work/spirit" extension install testdata/mcp/bench/echo-ext >/dev/null

servers=("spirit=$work/spirit mcp serve"
  "ts-sdk=env MCP_SDK_DIR=$sdk node testdata/mcp/bench/ts-echo-server.mjs"
  ${BASE:+"base=$BASE mcp serve"})
"$work/mcpload" -rounds "$ROUNDS" -calls "$CALLS" -warmup 1000 -inflight 8 \
  -seq-goal "spirit >= 2,500/s and >= ts-sdk" -par-goal "spirit >= 8,000/s and >= ts-sdk" \
  -title "MCP tools/call of an echo tool over stdio, mcpload's client ($(node --version), $(nproc) CPUs; goals: spirit >= 2,500/s sequential, >= 8,000/s with 8 in flight, >= ts-sdk)" \
  "${servers[@]}"
MCP_SDK_DIR=$sdk "$work/mcpload" -rounds "$ROUNDS" -calls "$CALLS" -warmup 1000 -inflight 8 \
  -ts-client testdata/mcp/bench/ts-client.mjs -label ", TypeScript SDK client" \
  -seq-goal "spirit >= ts-sdk" -par-goal "spirit >= ts-sdk" \
  -title "MCP tools/call of an echo tool over stdio, the TypeScript SDK's Client + StdioClientTransport (goal: spirit >= ts-sdk)" \
  "${servers[@]}"
