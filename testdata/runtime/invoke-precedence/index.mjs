export function activate() {
  return {
    invokeTool: (ctx) => 'invokeTool:' + ctx.toolName,
    tools: { hello: () => 'tools.hello' },
  };
}
