// Fixture of the MCP server tests: one tool per behaviour the server maps.
import net from 'node:net';

const events = [];
let aborted = 0;

export function activate() {
  return {
    tools: {
      echo: ({ arguments: args }) => args.text,
      fail: () => {
        throw new Error('the fail tool failed');
      },
      // hang waits until cancelled; once it listens for the cancellation it
      // connects to arguments.notify (host:port), the test's started signal.
      hang: ({ signal, arguments: args }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted++;
            resolve('aborted');
          });
          if (args?.notify) {
            const i = args.notify.lastIndexOf(':');
            net.connect(Number(args.notify.slice(i + 1)), args.notify.slice(0, i)).on('error', () => {}).end('started');
          }
        }),
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
