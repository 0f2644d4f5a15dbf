#!/usr/bin/env node
// Builds the web app (Vite → dist/web) and the server (tsc → dist) when they are missing
// or older than their sources, so `npm install && npm start` needs nothing else.
// `--force` rebuilds unconditionally.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { compressWeb } from './compress-web.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const force = process.argv.includes('--force');

function newest(entries) {
  let latest = 0;
  const walk = (p) => {
    let stat;
    try {
      stat = fs.statSync(p);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      if (/node_modules|dist|e2e|\.git/.test(path.basename(p))) return;
      for (const child of fs.readdirSync(p)) walk(path.join(p, child));
    } else if (!/\.test\.tsx?$/.test(p)) {
      latest = Math.max(latest, stat.mtimeMs);
    }
  };
  for (const entry of entries) walk(path.join(root, entry));
  return latest;
}

function stampOf(file) {
  try {
    return fs.statSync(path.join(root, file)).mtimeMs;
  } catch {
    return 0;
  }
}

function run(label, command, args) {
  process.stdout.write(`gatekeeper: building ${label}…\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: false });
  if (result.status !== 0) {
    process.stderr.write(`gatekeeper: building ${label} failed\n`);
    process.exit(result.status ?? 1);
  }
}

const bin = (name) => path.join(root, 'node_modules', '.bin', name);
if (!fs.existsSync(bin('tsc'))) {
  process.stderr.write('gatekeeper: dependencies are not installed yet (run npm install)\n');
  process.exit(1);
}

const webStamp = 'dist/web/index.html';
if (force || stampOf(webStamp) < newest(['web', 'src/shared', 'vite.config.ts'])) {
  run('the web app', bin('vite'), ['build', '--logLevel', 'warn']);
  compressWeb(path.join(root, 'dist/web'));
}

const serverStamp = 'dist/src/index.js';
if (force || stampOf(serverStamp) < newest(['src', 'scripts', 'tsconfig.json', 'tsconfig.build.json'])) {
  run('the server', bin('tsc'), ['-p', 'tsconfig.build.json']);
  fs.utimesSync(path.join(root, serverStamp), new Date(), new Date());
}
