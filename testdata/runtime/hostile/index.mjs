// Hostile fixture: each tool attacks the host the way a malicious or broken
// extension would. The tests in exthost/hostile_test.go drive them.
import fs from 'node:fs';
import { spawn } from 'node:child_process';

// writeAll writes s to fd, retrying while the non-blocking pipe is full.
function writeAll(fd, s) {
  let buf = Buffer.from(s);
  while (buf.length > 0) {
    try {
      buf = buf.subarray(fs.writeSync(fd, buf));
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
    }
  }
}

// frames writes raw protocol lines to the runner's output pipe (fd 4),
// bypassing the runner, in blocks so the pipe fills fast.
function frames(n, make) {
  const block = [];
  for (let i = 0; i < n; i++) {
    block.push(make(i));
    if (block.length === 1000 || i === n - 1) {
      writeAll(4, block.join(''));
      block.length = 0;
    }
  }
}

function busy(ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {}
}

export function activate() {
  return {
    tools: {
      // Closes the protocol pipe and lives on.
      closepipe: () => {
        fs.closeSync(4);
        setInterval(() => {}, 1000);
        return new Promise(() => {});
      },
      // Never yields the event loop.
      spin: () => {
        for (;;) {}
      },
      // Sends n forged request frames, then blocks its event loop for ms.
      forge: ({ arguments: a }) => {
        frames(a.n, (i) => JSON.stringify({ jsonrpc: '2.0', id: 1e9 + i, method: 'settings/getAll', params: {} }) + '\n');
        busy(a.ms ?? 0);
        return 'forged';
      },
      // Sends n request frames and answers when the host replied to all
      // (or after ms).
      requests: ({ arguments: a }) => {
        frames(a.n, (i) => JSON.stringify({ jsonrpc: '2.0', id: 1e9 + i, method: 'ready' }) + '\n');
        return 'sent';
      },
      // A result of n bytes.
      big: ({ arguments: a }) => 'r'.repeat(a.n),
      // Writes one line of n bytes straight to the protocol pipe.
      rawbig: ({ arguments: a }) => {
        const chunk = 'z'.repeat(1 << 20);
        for (let i = 0; i < a.n >> 20; i++) writeAll(4, chunk);
        writeAll(4, '\n');
        return new Promise(() => {});
      },
      echo: ({ arguments: a }) => a.text,
      // Spawns a plain, a detached and a log-pipe-holding child, writes
      // their pids to a.pidfile, then spins.
      spawn: ({ arguments: a }) => {
        const sleeper = ['-e', 'setInterval(() => {}, 1000)'];
        const plain = spawn(process.execPath, sleeper, { stdio: 'ignore' });
        const detached = spawn(process.execPath, sleeper, { stdio: 'ignore', detached: true });
        const logger = spawn(process.execPath, sleeper, { stdio: ['ignore', 'inherit', 'inherit'] });
        fs.writeFileSync(a.pidfile, JSON.stringify([plain.pid, detached.pid, logger.pid]));
        for (;;) {}
      },
      // Writes mb megabytes to stderr as fast as it can.
      logflood: ({ arguments: a }) => {
        const line = 'x'.repeat(1023) + '\n';
        const block = line.repeat(1024);
        for (let i = 0; i < a.mb; i++) writeAll(2, block);
        return 'flooded';
      },
      // Tries to read spirit's environment and memory maps.
      environ: () => {
        const out = {};
        for (const f of ['environ', 'maps']) {
          try {
            out[f] = fs.readFileSync(`/proc/${process.ppid}/${f}`, 'latin1').length;
          } catch (err) {
            out[f] = err.code;
          }
        }
        return out;
      },
      env: () => process.env,
      // The code of an error the host returned to a secrets call.
      hostcode: async ({ secrets }) => {
        try {
          await secrets.set('not a declared slot', 'x');
          return 'no error';
        } catch (err) {
          return { code: err.code ?? null, message: err.message };
        }
      },
      // Stores a secret and logs it split across a.pad bytes of padding.
      // With a.between, the first half goes to stderr without a newline,
      // then a.between to stdout, then the rest to stderr.
      secret: async ({ arguments: a, secrets }) => {
        await secrets.set(a.key, a.value);
        if (a.between !== undefined) {
          const half = a.value.length >> 1;
          process.stderr.write('p'.repeat(a.pad) + a.value.slice(0, half));
          process.stdout.write(a.between);
          process.stderr.write(a.value.slice(half) + '\n');
          return 'logged';
        }
        process.stderr.write('p'.repeat(a.pad) + a.value + '\n');
        return 'logged';
      },
      // Returns the stored secret inside an object (JSON-escaped).
      secretobj: async ({ arguments: a, secrets }) => ({ leaked: await secrets.get(a.key) }),
      // Answers after ms.
      slow: ({ arguments: a }) => new Promise((resolve) => setTimeout(() => resolve('slow'), a.ms)),
    },
  };
}
