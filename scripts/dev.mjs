#!/usr/bin/env node
// `npm run dev`: the server with reload (tsx watch) on :3000 and Vite's dev server on :5173.
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const env = { ...process.env, NODE_ENV: 'development', DEV_ALLOWED_ORIGINS: 'http://localhost:5173' };
const children = [
  spawn(bin('tsx'), ['watch', '--clear-screen=false', 'src/index.ts'], { cwd: root, stdio: 'inherit', env }),
  spawn(bin('vite'), [], { cwd: root, stdio: 'inherit', env }),
];
const stop = () => children.forEach((child) => child.kill('SIGTERM'));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
for (const child of children)
  child.on('exit', (code) => {
    stop();
    process.exitCode = code ?? 0;
  });
