import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sourceEntryArgs } from '../scripts/bench/product-process';

const root = path.resolve(__dirname, '..');

interface Exit {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real entry point with the given environment (no .env, no inherited settings) until it exits.
 * Asynchronous, so the boot checks below run side by side: each is a child that starts and exits on its
 * own, and most of a child's time is spent loading the product, not in this process.
 */
async function start(env: Record<string, string>): Promise<Exit> {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-proc-'));
  try {
    const child = spawn(process.execPath, sourceEntryArgs(root), { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const status = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    clearTimeout(timer);
    return { status, stdout, stderr };
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}

describe('the process at boot', () => {
  it.concurrent(
    'exits 1 with one clear line naming an invalid variable',
    async () => {
      const result = await start({ PORT: 'not-a-port' });
      expect(result.status).toBe(1);
      expect(result.stderr.trim()).toBe('gatekeeper: Invalid environment variable PORT: Invalid input: expected number, received NaN');
    },
    60_000,
  );

  // how long the default wait is, is checked in-process (src/db/postgres-connect.int.test.ts): a child's start-up time varies with the machine's load.
  // The shortest wait allowed (1 s) still retries before it gives up (after 0.25 s, then 0.5 s), so the one retry line shows, without 6 s of waiting.
  it.concurrent(
    'exits 1 with one retry line and one clear line when the database cannot be reached',
    async () => {
      const result = await start({
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
        DATABASE_CONNECT_TIMEOUT_SECONDS: '1',
        LOG_LEVEL: 'warn',
      });
      expect(result.status).toBe(1);
      expect(result.stdout.match(/database not reachable yet/g)).toHaveLength(1);
      expect(result.stderr.trim().split('\n').at(-1)).toMatch(
        /^gatekeeper: Cannot reach the PostgreSQL server at 127\.0\.0\.1:1\/none \(DATABASE_URL\)/,
      );
    },
    60_000,
  );

  // every refused setting takes the same path as this one (src/env.test.ts checks each setting's rule)
  it.concurrent.each([
    [
      'a javascript: PUBLIC_URL',
      { PUBLIC_URL: 'javascript:alert(1)' },
      /^gatekeeper: Invalid environment variable PUBLIC_URL: must start with https:\/\/ or http:\/\//,
    ],
    [
      'a HOST that is not this machine',
      { HOST: '192.0.2.55', PORT: '0', SANDBOX_DISCORD_PORT: '0' },
      /^gatekeeper: Cannot listen on 192\.0\.2\.55 \(HOST\): /,
    ],
    [
      'a DATA_DIR that is a file',
      { DATA_DIR: '/etc/hostname', PORT: '0', SANDBOX_DISCORD_PORT: '0' },
      /^gatekeeper: Cannot use the data folder \/etc\/hostname \(DATA_DIR\): EEXIST/,
    ],
  ])(
    'refuses %s in one plain line, with no stack trace',
    async (_name, env, line) => {
      const result = await start({ ...env, LOG_LEVEL: 'silent' });
      expect(result.status).toBe(1);
      expect(result.stderr.trim()).toMatch(line);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/\n\s+at |"stack"/);
    },
    60_000,
  );

  it.concurrent(
    'names SANDBOX_DISCORD_PORT, not PORT, when the sandbox Discord port is taken',
    async () => {
      const blocker = net.createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const port = (blocker.address() as net.AddressInfo).port;
      try {
        const result = await start({ PORT: '0', HOST: '127.0.0.1', SANDBOX_DISCORD_PORT: String(port), LOG_LEVEL: 'silent' });
        expect(result.status).toBe(1);
        expect(result.stderr.trim()).toBe(
          `gatekeeper: Port ${port} is already in use (SANDBOX_DISCORD_PORT): stop what uses it, or set SANDBOX_DISCORD_PORT to a free port (0 picks any free port)`,
        );
      } finally {
        blocker.close();
      }
    },
    60_000,
  );
});

describe('the running process', () => {
  it('serves, then on SIGTERM stops accepting, closes the database and exits 0, releasing the data folder', async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-proc-'));
    const child = spawn(process.execPath, sourceEntryArgs(root), {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: cwd,
        PORT: '0',
        HOST: '127.0.0.1',
        SANDBOX_DISCORD_PORT: '0',
        SERVICES: 'web,bot',
        LOG_LEVEL: 'info',
      },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed:\n${output}`)), 45_000);
        const check = () => {
          const match = /Gatekeeper is running at (http:\/\/[^\s]+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          } else setTimeout(check, 100);
        };
        check();
      });
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      expect(fs.existsSync(path.join(cwd, 'data', 'gatekeeper.lock'))).toBe(true);
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      const code = await exit;
      if (code !== 0) throw new Error(`exited ${code} on SIGTERM; its output:\n${output}`);
      expect(output).toContain('shutting down');
      expect(fs.existsSync(path.join(cwd, 'data', 'gatekeeper.lock'))).toBe(false);
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  }, 90_000);
});
