import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseOpenError, openPglite, openPostgres } from './client';
import { acquireDataDirLock, DataDirLockedError } from './data-dir-lock';

describe('the embedded database folder', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-datadir-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is locked against a second opener, naming the folder', () => {
    const release = acquireDataDirLock(dir);
    fs.writeFileSync(path.join(dir, 'gatekeeper.lock'), String(process.ppid)); // held by another live process
    expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
    expect(() => acquireDataDirLock(dir)).toThrow(dir);
    fs.writeFileSync(path.join(dir, 'gatekeeper.lock'), String(process.pid));
    release();
    expect(fs.existsSync(path.join(dir, 'gatekeeper.lock'))).toBe(false);
  });

  it('takes over a lock left by a dead process', () => {
    fs.writeFileSync(path.join(dir, 'gatekeeper.lock'), '999999999');
    const release = acquireDataDirLock(dir);
    expect(fs.readFileSync(path.join(dir, 'gatekeeper.lock'), 'utf8')).toBe(String(process.pid));
    release();
  });

  it('reports a damaged database folder clearly and releases the lock', async () => {
    fs.mkdirSync(path.join(dir, 'db'));
    fs.writeFileSync(path.join(dir, 'db', 'PG_VERSION'), 'garbage');
    const error = await openPglite(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect((error as Error).message).toContain(path.join(dir, 'db'));
    expect(fs.existsSync(path.join(dir, 'gatekeeper.lock'))).toBe(false);
  }, 60_000);
});

describe('an unreachable PostgreSQL server', () => {
  it('is retried with backoff for a bounded time, then reported naming DATABASE_URL', async () => {
    const retries: number[] = [];
    const started = Date.now();
    const error = await openPostgres({
      url: 'postgres://nobody@127.0.0.1:1/none',
      connectTimeoutSeconds: 2,
      onRetry: (_n, delay) => retries.push(delay),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect((error as Error).message).toMatch(/Cannot reach the PostgreSQL server at 127\.0\.0\.1:1\/none \(DATABASE_URL\)/);
    expect(retries.length).toBeGreaterThanOrEqual(2);
    expect(retries[1]!).toBeGreaterThan(retries[0]!); // backoff grows
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
