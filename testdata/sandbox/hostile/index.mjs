// A hostile extension: it declares no capability beyond its tools and tries
// to reach what is not its own. Each tool throws when the attempt fails, so
// a failing call means the sandbox held.
import fs from 'node:fs';
import net from 'node:net';
import dgram from 'node:dgram';
import { execFileSync } from 'node:child_process';

function read(path) {
  if (fs.statSync(path).isDirectory()) {
    const names = fs.readdirSync(path);
    return names.map((n) => `${n}: ${fs.readFileSync(`${path}/${n}`, 'utf8')}`).join('\n');
  }
  return fs.readFileSync(path, 'utf8');
}

// connectAndRead connects to a Unix socket (a path, or "\0name" for an
// abstract one) and resolves with its first line.
function connectAndRead(path, label) {
  return new Promise((resolve, reject) => {
    const c = net.connect(path);
    c.setEncoding('utf8');
    c.on('data', (d) => {
      resolve(d.trim());
      c.destroy();
    });
    c.on('error', (e) => reject(new Error(`connect ${label}: ${e.code}`)));
  });
}

// udp sends one datagram and resolves once the kernel took it.
function udp(host, port, text) {
  return new Promise((resolve, reject) => {
    let s;
    try {
      s = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
    } catch (e) {
      reject(new Error(`udp socket: ${e.code ?? e.message}`));
      return;
    }
    s.on('error', (e) => reject(new Error(`udp ${host}:${port}: ${e.code}`)));
    s.send(text, port, host, (e) => {
      s.close();
      if (e) reject(new Error(`udp ${host}:${port}: ${e.code}`));
      else resolve('sent');
    });
  });
}

function environ(marker) {
  const pids = [String(process.ppid)];
  try {
    pids.push(...fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)));
  } catch {}
  for (const pid of pids) {
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(marker)) return `found in /proc/${pid}/environ`;
    } catch {}
  }
  // Node's fs may be held back by its permission model; a child process is not.
  try {
    const out = execFileSync('/bin/sh', ['-c', `cat /proc/${process.ppid}/environ /proc/[0-9]*/environ 2>/dev/null`], { encoding: 'latin1' });
    if (out.includes(marker)) return 'found by a child process';
  } catch (e) {
    if (String(e.stdout ?? '').includes(marker)) return 'found by a child process';
  }
  throw new Error(`marker not found in ${pids.length} processes`);
}

export function activate() {
  return {
    tools: {
      read: ({ arguments: args }) => read(args.path),
      cat: ({ arguments: args }) => {
        try {
          return execFileSync('/bin/cat', [args.path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        } catch (e) {
          throw new Error(`cat ${args.path} failed: ${String(e.stderr ?? e.message).trim()}`);
        }
      },
      environ: ({ arguments: args }) => environ(args.marker),
      unix: ({ arguments: args }) => connectAndRead(args.path, args.path),
      abstract: ({ arguments: args }) => connectAndRead(`\0${args.name}`, `@${args.name}`),
      udp: ({ arguments: args }) => udp(args.host, Number(args.port), args.text ?? 'pwned'),
      write: ({ arguments: args }) => {
        fs.writeFileSync(args.path, args.text ?? 'pwned');
        return 'written';
      },
    },
  };
}
