// Fixture of the MCP server tests: one tool per behaviour the server maps.
const events = [];
let aborted = 0;

export function activate() {
  return {
    tools: {
      echo: ({ arguments: args }) => args.text,
      fail: () => {
        throw new Error('the fail tool failed');
      },
      hang: ({ signal }) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            aborted++;
            resolve('aborted');
          }),
        ),
      state: () => ({ aborted, events }),
      structured: () => ({ n: 7 }),
      approve: () => 'approved',
      questions: (ctx) => ctx.questionsResult ?? 'no questions result',
      secret: async ({ secrets }) => `the secret is ${await secrets.get('api-key')}`,
    },
    systemPrompt: 'Use the echo tool to repeat text.',
    onEvent: (event) => {
      const d = event.detail ?? {};
      if (d.request?.tool_name === 'state') return; // the state tool reports these events
      events.push({ type: event.type, toolName: d.toolName, failed: d.failed, output: d.output, displayName: d.displayName });
    },
  };
}
