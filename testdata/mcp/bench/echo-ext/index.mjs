// The extension of scripts/bench-mcp.sh: one tool that returns its text.
export function activate() {
  return { tools: { echo: ({ arguments: args }) => args.text } };
}
