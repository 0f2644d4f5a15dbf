import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { openPostgres } from './db/client';
import { createDiscordEmulator, type DiscordEmulator } from './discord-emulator';
import { describeOn, postgresTestUrl } from './test-support/engine-pass';
import { withDatabase } from './test-support/global-setup';
import { adminUrl, TEST_DATABASE_PREFIX, testRunId } from './test-support/template';
import { freePort, sourceEntryArgs } from '../scripts/bench/product-process';

const root = path.resolve(__dirname, '..');

interface Running {
  child: ChildProcess;
  exit: Promise<number | null>;
  output(): string;
  /** the JSON log lines written so far */
  logs(): Record<string, unknown>[];
  waitFor<T>(what: string, found: () => T | undefined, timeoutMs?: number): Promise<T>;
}

/** Runs the real entry point (TypeScript sources) with only the given environment. */
function run(cwd: string, env: Record<string, string>): Running {
  const child = spawn(process.execPath, sourceEntryArgs(root), {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, NODE_ENV: 'production', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const logs = () =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const waitFor = <T>(what: string, found: () => T | undefined, timeoutMs = 60_000) =>
    new Promise<T>((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      const check = () => {
        const value = found();
        if (value !== undefined) resolve(value);
        else if (Date.now() > deadline || child.exitCode !== null)
          reject(new Error(`timed out waiting for ${what}:\n${output.slice(-4000)}`));
        else setTimeout(check, 100);
      };
      check();
    });
  return { child, exit, output: () => output, logs, waitFor };
}

const urlLine = (output: string) => /Gatekeeper is running at (http:\/\/\S+)/.exec(output)?.[1];

/** One new connection per request, so the primary hands each to a worker in turn. */
function getOnce(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const serverUrl = postgresTestUrl();

describeOn('postgres')('WEB_CONCURRENCY=2 on PostgreSQL', () => {
  const name = `${TEST_DATABASE_PREFIX}${testRunId()}_cluster_${crypto.randomBytes(4).toString('hex')}`;
  let emulator: DiscordEmulator;
  let cwd: string;

  beforeAll(async () => {
    const admin = await openPostgres({ url: adminUrl(serverUrl!), connectTimeoutSeconds: 5, poolMax: 1 });
    try {
      // empty, not from the template: both workers migrate it at once
      await admin.exec(`create database ${name}`);
    } finally {
      await admin.close();
    }
    emulator = await createDiscordEmulator();
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-cluster-'));
  });

  afterAll(async () => {
    await emulator?.close();
    fs.rmSync(cwd, { recursive: true, force: true });
    const admin = await openPostgres({ url: adminUrl(serverUrl!), connectTimeoutSeconds: 5, poolMax: 1 });
    await admin.exec(`drop database if exists ${name} with (force)`).catch(() => undefined);
    await admin.close();
  });

  it('serves from two worker processes, replaces a killed one, and stops all on SIGTERM with exit 0', async () => {
    // PUBLIC_URL is required outside sandbox mode and is what the product prints: give it the port it listens on
    const port = await freePort();
    const product = run(cwd, {
      PORT: String(port),
      DATABASE_URL: withDatabase(serverUrl!, name),
      DATABASE_POOL_MAX: '4',
      WEB_CONCURRENCY: '2',
      // request lines are written at debug: they show which worker answered
      LOG_LEVEL: 'debug',
      DISCORD_BOT_TOKEN: emulator.application.botToken,
      DISCORD_CLIENT_ID: emulator.application.clientId,
      DISCORD_CLIENT_SECRET: emulator.application.clientSecret,
      DISCORD_GUILD_ID: emulator.guild.id,
      DISCORD_API_URL: emulator.apiBase,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
    });
    const workerPids = () =>
      product
        .logs()
        .filter((l) => l.msg === 'Gatekeeper is running')
        .map((l) => Number(l.pid));
    try {
      const url = await product.waitFor('the URL line', () => urlLine(product.output()), 90_000);
      expect(product.output().match(/Gatekeeper is running at/g)).toHaveLength(1);
      expect(product.output()).toContain('2 processes');
      // the URL line is the first worker's; the second's start line can come a moment later (seen under a full test run)
      const [first, second] = await product.waitFor(
        'both workers started',
        () => (workerPids().length >= 2 ? workerPids() : undefined),
        30_000,
      );
      expect(new Set([first, second, product.child.pid]).size).toBe(3);

      // both serve: request log lines carry the pid of the worker that answered
      for (let i = 0; i < 12; i++) expect(await getOnce(`${url}/api/config`)).toBe(200);
      const served = await product.waitFor('request logs from both workers', () => {
        const pids = new Set(
          product
            .logs()
            .filter((l) => l.req !== undefined && l.res !== undefined)
            .map((l) => Number(l.pid)),
        );
        return pids.size >= 2 ? pids : undefined;
      });
      expect([...served].sort()).toEqual([first, second].sort());
      // one set of generated keys for all: the workers created them at the same moment
      const files = fs.readdirSync(path.join(cwd, 'data'));
      expect(files).toEqual(expect.arrayContaining(['ip-hash.key', 'outbox.key', 'session.key', 'setup-code.txt']));
      expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);

      // a worker that dies is replaced
      process.kill(first!, 'SIGKILL');
      const replacement = await product.waitFor('a replacement worker', () => workerPids().find((pid) => pid !== first && pid !== second));
      expect(isAlive(replacement)).toBe(true);
      expect(await getOnce(`${url}/readyz`)).toBe(200);

      product.child.kill('SIGTERM');
      expect(await product.exit).toBe(0);
      expect(isAlive(second!)).toBe(false);
      expect(isAlive(replacement)).toBe(false);
      await expect(getOnce(`${url}/healthz`)).rejects.toThrow();
    } finally {
      product.child.kill('SIGKILL');
    }
  }, 180_000);
});

describeOn('pglite')('WEB_CONCURRENCY=2 on the embedded database', () => {
  it('runs one process and says why in one warning naming WEB_CONCURRENCY', async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-cluster-'));
    const product = run(cwd, { WEB_CONCURRENCY: '2', SANDBOX_DISCORD_PORT: '0', SERVICES: 'web', LOG_LEVEL: 'warn' });
    try {
      const url = await product.waitFor('the URL line', () => urlLine(product.output()), 60_000);
      const warnings = product.logs().filter((l) => String(l.msg).includes('WEB_CONCURRENCY'));
      expect(warnings.map((l) => l.msg)).toEqual([
        'WEB_CONCURRENCY=2 ignored, running 1 process: the embedded database serves one process (set DATABASE_URL to a PostgreSQL server)',
      ]);
      expect(product.output()).not.toContain('processes)');
      expect(await getOnce(`${url}/readyz`)).toBe(200);
      product.child.kill('SIGTERM');
      expect(await product.exit).toBe(0);
    } finally {
      product.child.kill('SIGKILL');
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  }, 90_000);
});
