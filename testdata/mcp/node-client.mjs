// An independent MCP client for the end-to-end test: the TypeScript SDK
// (@modelcontextprotocol/sdk, installed in MCP_CLIENT_DIR) starts
// `SPIRIT_BIN mcp serve` over stdio, lists the tools, calls an extension
// tool, a failing one and a need-questions one (answered through
// elicitation), and prints what it saw as JSON on stdout.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const deadline = setTimeout(() => {
  console.error('node-client: timed out');
  process.exit(2);
}, 30_000);

const sdk = (p) => import(pathToFileURL(join(process.env.MCP_CLIENT_DIR, 'node_modules/@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { ElicitRequestSchema } = await sdk('types.js');

const env = Object.fromEntries(Object.entries(process.env).filter(([, v]) => typeof v === 'string'));
const transport = new StdioClientTransport({ command: process.env.SPIRIT_BIN, args: ['mcp', 'serve'], env, stderr: 'inherit' });
const client = new Client({ name: 'node-e2e', version: '1.0.0' }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => ({
  action: 'accept',
  content: { execution_note: `answered: ${req.params.message}` },
}));

await client.connect(transport);
const out = { server: client.getServerVersion(), instructions: client.getInstructions() };
const { tools } = await client.listTools();
out.tools = tools.map((t) => t.name);
const byTool = (name) => tools.find((t) => t._meta?.['spirit/toolName'] === name)?.name;
const text = (r) => r.content.map((c) => c.text).join('');

let r = await client.callTool({ name: byTool('echo'), arguments: { text: 'hello from node' } });
out.echo = { isError: Boolean(r.isError), text: text(r) };
r = await client.callTool({ name: byTool('fail'), arguments: {} });
out.fail = { isError: Boolean(r.isError), text: text(r) };
r = await client.callTool({ name: byTool('questions'), arguments: {} });
out.questions = { isError: Boolean(r.isError), text: text(r) };
r = await client.callTool({ name: byTool('structured'), arguments: {} });
out.structured = r.structuredContent;

await client.close();
clearTimeout(deadline);
console.log(JSON.stringify(out));
