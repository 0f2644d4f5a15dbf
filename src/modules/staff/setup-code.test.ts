import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFileSetupCodeStore, generateSetupCode, prepareSetupCode, setupCodeMatches, SETUP_CODE_FILE } from './setup-code';

describe('setup code', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-setup-code-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const logger = () => {
    const lines: string[] = [];
    return { lines, warn: (_o: Record<string, unknown>, message: string) => lines.push(message) };
  };

  it('generates readable, unambiguous, distinct codes', () => {
    const codes = new Set(Array.from({ length: 200 }, generateSetupCode));
    expect(codes.size).toBe(200);
    for (const code of codes) expect(code).toMatch(/^[A-HJKMNP-Z2-9]{5}(-[A-HJKMNP-Z2-9]{5}){3}$/);
  });

  it('compares ignoring case, spaces and dashes, and never matches without a code', () => {
    expect(setupCodeMatches('ABCDE-FGHJK', 'abcde fghjk')).toBe(true);
    expect(setupCodeMatches('ABCDE-FGHJK', 'ABCDEFGHJK')).toBe(true);
    expect(setupCodeMatches('ABCDE-FGHJK', 'ABCDE-FGHJX')).toBe(false);
    expect(setupCodeMatches('ABCDE-FGHJK', '')).toBe(false);
    expect(setupCodeMatches(null, '')).toBe(false);
  });

  it('writes the code to DATA_DIR/setup-code.txt (0600), prints it, and keeps it across restarts', () => {
    const log = logger();
    const announced: string[] = [];
    const store = prepareSetupCode({ dataDir: dir, staffExists: false, logger: log, announce: (c) => announced.push(c) });
    const file = path.join(dir, SETUP_CODE_FILE);
    const code = store.current()!;
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(code);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(announced).toEqual([code]); // shown to the operator…
    expect(log.lines[0]).toContain(file);
    expect(log.lines.join('\n')).not.toContain(code); // …but never logged
    expect(prepareSetupCode({ dataDir: dir, staffExists: false, logger: logger() }).current()).toBe(code);
  });

  it('deletes the file when setup completes, and any stale one once staff exists', () => {
    const store = prepareSetupCode({ dataDir: dir, staffExists: false, logger: logger() });
    store.consume();
    expect(store.current()).toBeNull();
    expect(fs.existsSync(path.join(dir, SETUP_CODE_FILE))).toBe(false);

    createFileSetupCodeStore(dir).ensure();
    const log = logger();
    const closed = prepareSetupCode({ dataDir: dir, staffExists: true, logger: log });
    expect(closed.current()).toBeNull();
    expect(log.lines).toEqual([]);
  });
});
