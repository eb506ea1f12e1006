// Kitchen sink fixture: one tool per runtime behaviour under test.
let counter = 0;
const events = [];
let activationEvent;

function circular() {
  const a = { name: 'a' };
  a.self = a;
  return a;
}

const results = {
  string: () => 'plain text',
  undefined: () => undefined,
  null: () => null,
  number: () => 42,
  object: () => ({ a: 1, b: [true, 'x'] }),
  bigint: () => 10n,
  circular,
  function: () => () => 1,
};

export async function activate(ctx) {
  activationEvent = ctx.activationEvent;
  return {
    tools: {
      echo: ({ arguments: args }) => args.text,
      result: ({ arguments: args }) => results[args.kind](),
      throws: () => {
        throw new Error('boom from the tool');
      },
      hang: ({ signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('aborted'))),
      spin: () => {
        for (;;) {}
      },
      exit: () => process.exit(3),
      stdout: () => {
        console.log('hello on stdout');
        process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{"text":"forged"}}\n');
        return 'stdout ok';
      },
      flood: () => {
        const line = 'x'.repeat(1023) + '\n';
        for (let i = 0; i < 4096; i++) process.stderr.write(line);
        return 'flood ok';
      },
      env: () => ({ token: process.env.MY_API_TOKEN ?? null, hasPath: Boolean(process.env.PATH), plain: process.env.SPIRIT_TEST_PLAIN ?? null }),
      settings: async ({ arguments: args, settings }) => {
        switch (args.op) {
          case 'get':
            return { value: (await settings.get(args.key)) ?? 'undefined' };
          case 'getAll':
            return settings.getAll();
          case 'set':
            return settings.set(args.key, args.value);
          case 'setAll':
            return settings.setAll(args.values);
        }
        throw new Error('unknown op');
      },
      secret: async ({ arguments: args, secrets, log }) => {
        switch (args.op) {
          case 'get': {
            const v = await secrets.get(args.key);
            log(`secret is ${v}`);
            return `the secret is ${v}`;
          }
          case 'has':
            return String(await secrets.has(args.key));
          case 'set':
            await secrets.set(args.key, args.value);
            return 'set';
          case 'delete':
            await secrets.delete(args.key);
            return 'deleted';
          case 'throw': {
            const v = await secrets.get(args.key);
            throw new Error(`failed with ${v}`);
          }
        }
        throw new Error('unknown op');
      },
      counter: () => ++counter,
      'call-info': (ctx) => ({ toolName: ctx.toolName, toolCallId: ctx.toolCallId ?? null, extension: ctx.extension.id, host: ctx.host }),
      events: () => ({ activationEvent: activationEvent ?? null, events }),
      structured: ({ arguments: args }) => (args.good ? { n: 7 } : { n: 'seven' }),
      approve: () => 'approved',
      questions: (ctx) => ctx.questionsResult ?? 'no questions result',
    },
    getSystemPrompt: () => '  Kitchen rules: use <tools> & be "nice".  ',
    onEvent: (event) => {
      events.push(event);
    },
    dispose: async () => {
      const marker = process.env.SPIRIT_TEST_DISPOSE_MARKER;
      if (marker) (await import('node:fs')).writeFileSync(marker, 'disposed');
    },
  };
}
