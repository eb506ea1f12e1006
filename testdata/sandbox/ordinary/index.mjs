// An ordinary extension: it calls an HTTP API and reads a file the user
// points it at. Both work under the default sandbox policy.
import fs from 'node:fs/promises';

export function activate() {
  return {
    tools: {
      fetch: async ({ arguments: args }) => {
        try {
          const res = await fetch(args.url);
          return `${res.status} ${await res.text()}`;
        } catch (e) {
          throw new Error(`fetch failed: ${e.cause?.message ?? e.message}`);
        }
      },
      readfile: ({ arguments: args }) => fs.readFile(args.path, 'utf8'),
    },
  };
}
