#!/usr/bin/env node
// The `spirit` command of the npm package @spiritagents/spirit: it finds the
// native binary that npm installed from the optional dependency for this
// platform and runs it. stdio is the same; SIGINT, SIGTERM and SIGHUP sent
// to this process are passed on to spirit; spirit's exit status is ours,
// and when spirit dies by a signal this process dies by the same signal.
// No dependencies, no install script, nothing downloaded.
'use strict';

const { spawn } = require('child_process');
const path = require('path');

const packages = {
  'linux x64': '@spiritagents/spirit-linux-x64',
  'linux arm64': '@spiritagents/spirit-linux-arm64',
  'darwin x64': '@spiritagents/spirit-darwin-x64',
  'darwin arm64': '@spiritagents/spirit-darwin-arm64',
  'win32 x64': '@spiritagents/spirit-win32-x64',
  'win32 arm64': '@spiritagents/spirit-win32-arm64',
};

const otherWays = 'Hint: other ways to install spirit (go install, release archives): https://github.com/spiritagents/spirit#install';

function fail(message, hint) {
  process.stderr.write(`Error: ${message}\n${hint}\n`);
  process.exit(1);
}

function binaryPath() {
  const platform = `${process.platform} ${process.arch}`;
  const pkg = packages[platform];
  if (!pkg) {
    fail(`spirit has no binary for ${platform} in this npm package; it has: ${Object.keys(packages).join(', ')}`, otherWays);
  }
  const exe = process.platform === 'win32' ? 'spirit.exe' : 'spirit';
  let manifest;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    fail(
      `the package ${pkg}, which holds spirit for ${platform}, is not installed`,
      'Hint: it is an optional dependency of @spiritagents/spirit: install again without --omit=optional or --no-optional ' +
        '(a lock file made on another platform may lack it: remove node_modules and the lock file, then npm install)',
    );
  }
  return path.join(path.dirname(manifest), 'bin', exe);
}

const bin = binaryPath();
const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit' });

const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const forward = (signal) => {
  // The child may be gone already; its exit is reported below.
  try {
    child.kill(signal);
  } catch {}
};
for (const signal of forwarded) {
  process.on(signal, forward);
}

child.on('error', (err) => {
  fail(`cannot run ${bin}: ${err.message}`, 'Hint: reinstall @spiritagents/spirit; ' + otherWays.slice('Hint: '.length));
});

child.on('exit', (code, signal) => {
  if (signal) {
    // Die the way spirit died, so a shell or a parent sees the signal.
    for (const s of forwarded) {
      process.removeListener(s, forward);
    }
    process.kill(process.pid, signal);
    // Still here: this process ignores that signal; the shell's convention.
    const number = require('os').constants.signals[signal] || 0;
    setTimeout(() => process.exit(128 + number), 1000);
    return;
  }
  process.exit(code === null ? 1 : code);
});
