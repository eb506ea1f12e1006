// The TypeScript SDK's own client as a load generator for internal/mcpload
// (-client): @modelcontextprotocol/sdk's Client over StdioClientTransport
// (loaded from MCP_SDK_DIR) starts the server MCP_SERVER (a JSON array:
// command and arguments), lists its one tool, warms up, then runs the two
// timed phases of mcpload: CALLS calls one at a time, and CALLS calls from
// INFLIGHT concurrent callers (each starts its next call when its last one
// is answered). Every answer is checked to be the text of its request.
//
// It talks to mcpload over its own stdin and stdout, one line each way:
//   ready {"pid":N}        once the server is initialized and warm; then waits
//                          for a line (mcpload reads the server's CPU time)
//   done {"seq":…,"par":…,"p50us":…}  after the phases, calls/s and the
//                          sequential p50; then waits for a line and closes.
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';

const require = createRequire(join(resolve(process.env.MCP_SDK_DIR), 'package.json'));
const load = async (spec) => import(pathToFileURL(require.resolve(spec)).href);
const { Client } = await load('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await load('@modelcontextprotocol/sdk/client/stdio.js');

const [command, ...args] = JSON.parse(process.env.MCP_SERVER);
const calls = Number(process.env.CALLS || 4000);
const warmup = Number(process.env.WARMUP || 500);
const inflight = Number(process.env.INFLIGHT || 8);

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const env = Object.fromEntries(Object.entries(process.env).filter(([, v]) => typeof v === 'string'));
const transport = new StdioClientTransport({ command, args, env, stderr: 'inherit' });
const client = new Client({ name: 'mcpload-ts', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
if (tools.length !== 1) throw new Error(`the server offers ${tools.length} tools, want exactly one`);
const name = tools[0].name;

let next = 0;
async function call() {
  const want = 'c' + next++;
  const r = await client.callTool({ name, arguments: { text: want } });
  if (r.isError || r.content.length !== 1 || r.content[0].text !== want) {
    throw new Error(`call returned ${JSON.stringify(r)}, want the text ${want}`);
  }
}

async function phase(n, callers, lat) {
  let left = n;
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: Math.min(callers, n) }, async () => {
    while (left > 0) {
      left--;
      const t0 = process.hrtime.bigint();
      await call();
      if (lat) lat.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
  }));
  return Number(process.hrtime.bigint() - start) / 1e9;
}

await phase(warmup, inflight);
process.stdout.write(`ready ${JSON.stringify({ pid: transport.pid })}\n`);
await lines.next();
const lat = [];
const seq = await phase(calls, 1, lat);
const par = await phase(calls, inflight);
lat.sort((a, b) => a - b);
process.stdout.write(`done ${JSON.stringify({ seq: calls / seq, par: calls / par, p50us: lat[lat.length >> 1] })}\n`);
await lines.next();
await client.close();
process.exit(0);
