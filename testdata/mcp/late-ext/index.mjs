// Fixture installed while the MCP server runs.
export function activate() {
  return { tools: { ping: () => 'pong' } };
}
