// spirit extension runner. The Go host starts one Node.js process per
// extension with this script and speaks JSON-RPC 2.0 to it, one JSON message
// per line: host -> runner on fd 3, runner -> host on fd 4 (on Windows, both
// over the named pipe whose path is the first argument). The extension's
// stdout and stderr go to its log file and never touch the protocol.
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [major] = process.versions.node.split('.').map(Number);
if (major < 18) {
  process.stderr.write(`spirit: Node.js ${process.versions.node} is too old; 18 or later is needed\n`);
  process.exit(78);
}

// Windows passes no descriptors beyond the standard streams: there the host
// listens on a named pipe only this user may open and names it in argv.
const pipePath = process.platform === 'win32' ? process.argv.splice(1, 1)[0] : undefined;
const input = pipePath ? net.connect(pipePath) : new net.Socket({ fd: 3, readable: true, writable: false });
const output = pipePath ? input : new net.Socket({ fd: 4, readable: false, writable: true });

// Error codes shared with the Go host (exthost/rpc.go).
const CODE_EXTENSION = -32000; // the extension failed: load, activate, event, prompt, dispose
const CODE_TOOL = -32001; // the tool handler threw or its result cannot be rendered
const EXIT_PROTOCOL = 76; // the host sent a line over MAX_LINE (exthost/node.go exitProtocol)

let nextID = 1;
const outgoing = new Map(); // id -> {resolve, reject}
const running = new Map(); // id -> call state (see handleRequest)

let extension = null; // runtime info of the extension
let instance; // the recognised members, bound to their object
let logPrefix = '[extension]';
// Node warns when main is an ES module in a package without "type":
// "module" (it parses main twice at every start); activate reports it.
let moduleTypeless = false;
process.on('warning', (w) => {
  if (w?.code === 'MODULE_TYPELESS_PACKAGE_JSON') moduleTypeless = true;
});

// MAX_LINE is the Go host's cap on one protocol line (exthost/rpc.go
// maxMessage); the runner keeps the same cap in both directions.
const MAX_LINE = 64 * 1024 * 1024;

// MAX_STATIC_PROMPT is the longest static prompt sent with the answer to
// activate (in UTF-16 units); a longer one is read with systemPrompt.
const MAX_STATIC_PROMPT = 1024 * 1024;

function send(msg) {
  output.write(frame(msg));
}

// frame encodes msg as one protocol line; a line over MAX_LINE throws an
// RPCError with the given code instead of being sent.
function frame(msg, code = CODE_EXTENSION) {
  let line;
  try {
    line = JSON.stringify(msg) + '\n';
  } catch (err) {
    throw new RPCError(code, `The message cannot be sent to the host: ${messageOf(err)}`);
  }
  const size = Buffer.byteLength(line);
  if (size > MAX_LINE) {
    throw new RPCError(code, `The message is ${size} bytes, larger than the 64 MiB the host accepts`);
  }
  return line;
}

function call(method, params) {
  const id = nextID++;
  return new Promise((resolve, reject) => {
    const line = frame({ jsonrpc: '2.0', id, method, params });
    outgoing.set(id, { resolve, reject });
    output.write(line);
  });
}

class RPCError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

// HostError is the host's refusal of a settings or secrets call; code is
// the JSON-RPC error code the host sent.
class HostError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function messageOf(err) {
  if (err instanceof Error) return err.message;
  try {
    return String(err);
  } catch {
    return 'unknown error';
  }
}

function logError(what, err) {
  const detail = err instanceof Error && err.stack ? err.stack : messageOf(err);
  process.stderr.write(`${logPrefix} ${what}: ${detail}\n`);
}

function makeSettings() {
  return Object.freeze({
    get: (key) => call('settings/get', { key }).then((r) => r.value ?? undefined),
    getAll: () => call('settings/getAll', {}).then((r) => r.values),
    // set resolves to undefined, setAll to the values, as in the apps. An
    // undefined value travels as null plus its key in `undefined`, so the
    // host refuses it with the setting's type message as the apps do.
    set: (key, value) =>
      call('settings/set', { key, value: value === undefined ? null : value, undefined: value === undefined ? [key] : [] }).then(() => undefined),
    setAll: (values) => {
      const sent = {};
      const undef = [];
      if (values !== null && typeof values === 'object') {
        for (const key of Object.keys(values)) {
          sent[key] = values[key] === undefined ? null : values[key];
          if (values[key] === undefined) undef.push(key);
        }
      }
      return call('settings/setAll', { values: values !== null && typeof values === 'object' ? sent : values, undefined: undef }).then((r) => r.values);
    },
  });
}

// The settings and secrets objects hold no state of their own (every
// method asks the host), so one frozen pair serves every context.
let sharedSettings;
let sharedSecrets;
function settingsObject() {
  sharedSettings ??= makeSettings();
  return sharedSettings;
}
function secretsObject() {
  sharedSecrets ??= makeSecrets();
  return sharedSecrets;
}

function makeSecrets() {
  return Object.freeze({
    get: (key) => call('secrets/get', { key }).then((r) => r.value ?? undefined),
    has: (key) => call('secrets/has', { key }).then((r) => r.value === true),
    set: (key, value) => call('secrets/set', { key, value: String(value ?? '') }).then(() => undefined),
    delete: (key) => call('secrets/delete', { key }).then(() => undefined),
  });
}

function log(message) {
  process.stderr.write(`${logPrefix} ${message}\n`);
}

// readInstance keeps the members the reference recognises. They are not
// bound: the apps copy them into a new object and call them detached, so
// `this` is undefined in a handler there, and must be here too.
function readInstance(value) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined;
  const out = {};
  let usable = false;
  const tools = value.tools;
  if (tools !== null && typeof tools === 'object') {
    const kept = {};
    for (const [name, fn] of Object.entries(tools)) {
      if (typeof fn === 'function') kept[name] = fn;
    }
    if (Object.keys(kept).length > 0) {
      out.tools = kept;
      usable = true;
    }
  }
  for (const name of ['invokeTool', 'getSystemPrompt', 'onEvent', 'dispose']) {
    if (typeof value[name] === 'function') {
      out[name] = value[name];
      usable = true;
    }
  }
  if (typeof value.systemPrompt === 'string' && value.systemPrompt.trim() !== '') {
    out.systemPrompt = value.systemPrompt;
    usable = true;
  }
  return usable ? out : undefined;
}

// inPackage returns the path of url (a file: URL or a path) relative to the
// package directory, or '' when it is outside it.
function inPackage(url, dir) {
  let p;
  try {
    p = url.startsWith('file:') ? fileURLToPath(url) : url;
  } catch {
    return '';
  }
  const rel = path.relative(dir, p);
  // [evalN] is this runner, which Node names as if it were in the package.
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel) || rel.startsWith('[eval')) return '';
  return rel.split(path.sep).join('/');
}

// located reads "FILE:LINE\nSOURCE\n   ^" (how Node prints a syntax
// error's place) from text, as "file:line:column" inside the package.
function located(text, dir) {
  const m = /^(file:\/\/\S+|\/\S+):(\d+)\r?\n.*\r?\n( *)\^/m.exec(text);
  if (!m) return '';
  const rel = inPackage(m[1], dir);
  return rel ? `${rel}:${m[2]}:${m[3].length + 1}` : '';
}

// whereOf names the place in the package an error comes from, as
// "file:line:column: Name: message", or '' when it cannot be told: the
// first stack frame inside the package, or for a module syntax error
// (whose place Node keeps out of the error object) the place Node prints
// when a child process imports main again. A syntax error stops the
// import before any module runs, so the child runs no extension code.
function whereOf(err, dir, mainPath) {
  if (!(err instanceof Error)) return '';
  const stack = typeof err.stack === 'string' ? err.stack : '';
  const what = `${err.name}: ${err.message}`;
  let loc = located(stack, dir);
  if (!loc) {
    for (const m of stack.matchAll(/(file:\/\/[^\s()]+|\/[^\s():]+):(\d+):(\d+)/g)) {
      const rel = inPackage(m[1], dir);
      if (rel) {
        loc = `${rel}:${m[2]}:${m[3]}`;
        break;
      }
    }
  }
  if (!loc && err instanceof SyntaxError) {
    try {
      const child = spawnSync(
        process.execPath,
        ['--input-type=module', '--eval', `await import(${JSON.stringify(pathToFileURL(mainPath).href)})`],
        { cwd: dir, encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 20 },
      );
      loc = located(child.stderr ?? '', dir);
    } catch {
      // A sandbox that forbids child processes: the place stays unknown.
    }
  }
  return loc ? `${loc}: ${what}` : '';
}

function findActivate(mod) {
  if (typeof mod === 'function') return mod;
  if (typeof mod.activate === 'function') return mod.activate;
  if (typeof mod.default === 'function') return mod.default;
  if (mod.default && typeof mod.default.activate === 'function') return mod.default.activate;
  return undefined;
}

async function activate({ info, mainPath, activationEvent }) {
  // The apps' key order.
  extension = Object.freeze({
    id: info.id,
    name: info.name,
    version: info.version,
    directoryPath: info.directoryPath,
    manifestPath: info.manifestPath,
    main: info.main,
  });
  logPrefix = `[extension:${info.id}]`;
  let mod;
  try {
    mod = await import(pathToFileURL(mainPath).href);
    // Node emits a warning of the load on a later tick: one turn of the
    // event loop lets moduleTypeless see it.
    await new Promise((resolve) => setImmediate(resolve));
  } catch (err) {
    logError('load failed', err);
    const location = whereOf(err, info.directoryPath, mainPath);
    if (location) process.stderr.write(`${logPrefix} load failed at ${location}\n`);
    throw new RPCError(CODE_EXTENSION, `Failed to load extension: ${info.name} (${messageOf(err)})`, { location });
  }
  const fn = findActivate(mod);
  if (!fn) {
    throw new RPCError(
      CODE_EXTENSION,
      `Extension ${info.name} does not export activate; export activate(context) or a default export of that function.`,
    );
  }
  const ctx = { extension, host: {}, log, settings: settingsObject(), secrets: secretsObject() };
  if (activationEvent) ctx.activationEvent = activationEvent;
  let returned;
  try {
    returned = await fn(ctx);
  } catch (err) {
    logError('activate failed', err);
    const location = whereOf(err, info.directoryPath, mainPath);
    throw new RPCError(CODE_EXTENSION, `Failed to execute extension: ${info.name} (${messageOf(err)})`, { location });
  }
  // As in the apps: the returned value, else the module's exports; an
  // `export default { activate, tools }` whose activate returns nothing
  // has no instance (its tools are not read from the default export).
  instance = readInstance(returned) ?? readInstance(mod);
  const caps = {
    instance: instance !== undefined,
    tools: instance?.tools ? Object.keys(instance.tools) : [],
    invokeTool: typeof instance?.invokeTool === 'function',
    systemPrompt: instance?.systemPrompt !== undefined || typeof instance?.getSystemPrompt === 'function',
    getSystemPrompt: typeof instance?.getSystemPrompt === 'function',
    onEvent: typeof instance?.onEvent === 'function',
    dispose: typeof instance?.dispose === 'function',
    moduleTypeless,
  };
  // A static prompt cannot change after activation (readInstance copied the
  // string): it comes with the answer, saving the host a systemPrompt call.
  // A huge one is left to that call, so it cannot make activation fail.
  if (caps.systemPrompt && !caps.getSystemPrompt && instance.systemPrompt.length <= MAX_STATIC_PROMPT) {
    caps.staticPrompt = instance.systemPrompt.trim();
  }
  return caps;
}

// render turns a handler's value into the tool result text as the reference
// does, except that values JSON cannot represent become a clear error.
function render(value) {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  let text;
  try {
    text = JSON.stringify(value, null, 2);
  } catch (err) {
    throw new RPCError(CODE_TOOL, `The tool result cannot be converted to JSON: ${messageOf(err)}`);
  }
  if (text === undefined) {
    throw new RPCError(CODE_TOOL, `The tool result cannot be converted to JSON: a ${typeof value} has no JSON form`);
  }
  return text;
}

async function invokeTool({ toolName, arguments: args, toolCallId, questionsResult }, state) {
  if (!instance) throw new RPCError(CODE_TOOL, `The extension did not return a callable instance: ${extension.name}`);
  // The AbortController is made only when the handler reads ctx.signal.
  const ctx = {
    extension, host: {}, toolName, arguments: args, log, settings: settingsObject(), secrets: secretsObject(),
    get signal() {
      return signalOf(state);
    },
  };
  if (toolCallId) ctx.toolCallId = toolCallId;
  if (questionsResult !== null && typeof questionsResult === 'object') ctx.questionsResult = questionsResult;
  let handler;
  if (instance.invokeTool) handler = instance.invokeTool;
  else if (instance.tools && Object.hasOwn(instance.tools, toolName)) handler = instance.tools[toolName];
  else throw new RPCError(CODE_TOOL, `The extension does not export a tool handler: ${toolName}`);
  let value;
  try {
    value = await handler(ctx);
  } catch (err) {
    logError(`tool ${toolName} failed`, err);
    throw new RPCError(CODE_TOOL, messageOf(err));
  }
  return { text: render(value) };
}

async function systemPrompt() {
  if (!instance) return { text: '' };
  if (instance.getSystemPrompt) {
    const v = await instance.getSystemPrompt();
    return { text: typeof v === 'string' ? v.trim() : '' };
  }
  return { text: (instance.systemPrompt ?? '').trim() };
}

async function onEvent(event) {
  if (instance?.onEvent) await instance.onEvent(event);
  return {};
}

async function dispose() {
  if (instance?.dispose) await instance.dispose();
  return {};
}

// signalOf is the abort signal of a request's state, made on first use
// (already aborted when the host cancelled before the handler asked).
function signalOf(state) {
  if (!state.ac) {
    state.ac = new AbortController();
    if (state.aborted) state.ac.abort();
  }
  return state.ac.signal;
}

const methods = { activate, invokeTool, systemPrompt, onEvent, dispose };

async function handleRequest(msg) {
  const fn = Object.hasOwn(methods, msg.method) ? methods[msg.method] : undefined;
  if (!fn) {
    send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
    return;
  }
  const state = { aborted: false, ac: undefined };
  running.set(msg.id, state);
  try {
    const result = await fn(msg.params ?? {}, state);
    const code = msg.method === 'invokeTool' ? CODE_TOOL : CODE_EXTENSION;
    if (!state.aborted) output.write(frame({ jsonrpc: '2.0', id: msg.id, result }, code));
  } catch (err) {
    const code = err instanceof RPCError ? err.code : CODE_EXTENSION;
    if (!(err instanceof RPCError)) logError(`${msg.method} failed`, err);
    const error = { code, message: messageOf(err) };
    if (err instanceof RPCError && err.data !== undefined) error.data = err.data;
    if (!state.aborted) send({ jsonrpc: '2.0', id: msg.id, error });
  } finally {
    running.delete(msg.id);
  }
}

function handle(msg) {
  if (msg.method === '$/cancelRequest') {
    const state = running.get(msg.params?.id);
    // The host has stopped waiting; the handler sees ctx.signal aborted.
    if (state) {
      state.aborted = true;
      state.ac?.abort();
    }
    return;
  }
  if (msg.method !== undefined) {
    handleRequest(msg);
    return;
  }
  const pending = outgoing.get(msg.id);
  if (!pending) return;
  outgoing.delete(msg.id);
  if (msg.error) pending.reject(new HostError(msg.error.code, msg.error.message));
  else pending.resolve(msg.result ?? {});
}

function handleLine(line) {
  if (line.trim() === '') return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    process.stderr.write('spirit runner: ignored a line that is not JSON\n');
    return;
  }
  handle(msg);
}

function tooLong() {
  process.stderr.write('spirit runner: the host sent a protocol line larger than 64 MiB; stopping\n');
  process.exit(EXIT_PROTOCOL);
}

// Lines are split on the newline byte; the parts of an unfinished line are
// kept as a list and joined once, so a long line costs linear time.
let parts = [];
let partsLength = 0;
input.on('data', (chunk) => {
  let start = 0;
  let nl;
  while ((nl = chunk.indexOf(10, start)) >= 0) {
    let line = chunk.subarray(start, nl);
    if (parts.length > 0) {
      parts.push(line);
      line = Buffer.concat(parts, partsLength + line.length);
      parts = [];
      partsLength = 0;
    }
    start = nl + 1;
    if (line.length > MAX_LINE) tooLong();
    handleLine(line.toString('utf8'));
  }
  if (start < chunk.length) {
    parts.push(chunk.subarray(start));
    partsLength += chunk.length - start;
    if (partsLength > MAX_LINE) tooLong();
  }
});
// The host closing its end means: stop now.
input.on('end', () => process.exit(0));
input.on('error', () => process.exit(0));
output.on('error', () => process.exit(0));
send({ jsonrpc: '2.0', method: 'ready', params: { node: process.versions.node } });
