import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadOrCreateSecret } from './secrets';

describe('loadOrCreateSecret', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-secret-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('generates the secret once into a 0600 file and reads it back after', () => {
    const first = loadOrCreateSecret(dir, 'session.key');
    expect(first).toHaveLength(32);
    expect(fs.statSync(path.join(dir, 'session.key')).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecret(dir, 'session.key').equals(first)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['session.key']);
  });

  it('uses the file another process created first instead of overwriting it', () => {
    const theirs = 'ab'.repeat(32);
    const link = fs.linkSync.bind(fs);
    // the other process wins the race between our read and our link
    const spy = jest.spyOn(fs, 'linkSync').mockImplementation((from, to) => {
      fs.writeFileSync(to, theirs);
      link(from, to);
    });
    try {
      expect(loadOrCreateSecret(dir, 'outbox.key').toString('hex')).toBe(theirs);
    } finally {
      spy.mockRestore();
    }
    expect(fs.readFileSync(path.join(dir, 'outbox.key'), 'utf8')).toBe(theirs);
    expect(fs.readdirSync(dir)).toEqual(['outbox.key']);
  });

  it('replaces a short file left by an interrupted write, and prefers the environment', () => {
    fs.writeFileSync(path.join(dir, 'session.key'), 'abc');
    const secret = loadOrCreateSecret(dir, 'session.key');
    expect(fs.readFileSync(path.join(dir, 'session.key'), 'utf8')).toBe(secret.toString('hex'));
    expect(loadOrCreateSecret(dir, 'session.key', 'x'.repeat(40)).toString()).toBe('x'.repeat(40));
  });
});
