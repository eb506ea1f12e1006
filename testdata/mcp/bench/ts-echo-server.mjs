// The comparison server of scripts/bench-mcp.sh: the TypeScript MCP SDK's
// McpServer over stdio with one tool, echo, that returns its text argument,
// as the echo extension does behind `spirit mcp serve`. The SDK is loaded
// from MCP_SDK_DIR (an npm install of @modelcontextprotocol/sdk and zod).
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(join(resolve(process.env.MCP_SDK_DIR), 'package.json'));
const load = async (spec) => import(pathToFileURL(require.resolve(spec)).href);

const { McpServer } = await load('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = await load('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = await load('zod');

const server = new McpServer({ name: 'ts-echo', version: '1.0.0' });
server.registerTool(
  'echo',
  { description: 'Repeats the text.', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);
await server.connect(new StdioServerTransport());
