import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The one-time code /setup asks for (docs/behaviour.md#staff-roles-and-sessions): generated while no staff account
 * exists, printed at start-up and written to DATA_DIR/setup-code.txt (mode 0600), and
 * deleted when the owner has been created. Whoever can read the server's console or
 * data folder is the operator; nobody else can claim the owner account first.
 */
export interface SetupCodeStore {
  /** the code that unlocks setup, or null when setup is closed */
  current(): string | null;
  /** forgets the code (setup completed) */
  consume(): void;
}

export const SETUP_CODE_FILE = 'setup-code.txt';

// no 0/O/1/I/L: the code is read off a console and typed in by hand
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const GROUPS = 4;
const GROUP_LENGTH = 5;

/** ~98 bits: four groups of five characters, e.g. 'K7QMZ-3HXPA-W9RTE-C4NVB'. */
export function generateSetupCode(): string {
  const chars: string[] = [];
  while (chars.length < GROUPS * GROUP_LENGTH) {
    const byte = crypto.randomBytes(1)[0]!;
    if (byte < 248) chars.push(ALPHABET[byte % ALPHABET.length]!); // 248 = 8 × 31: no modulo bias
  }
  return Array.from({ length: GROUPS }, (_, i) => chars.slice(i * GROUP_LENGTH, (i + 1) * GROUP_LENGTH).join('')).join('-');
}

/** Case, spaces and dashes do not matter when the code is typed in. */
function canonical(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}

/** Constant-time comparison (of digests, so lengths never leak). */
export function setupCodeMatches(expected: string | null, candidate: string): boolean {
  if (!expected) return false;
  const a = crypto.createHash('sha256').update(canonical(expected)).digest();
  const b = crypto.createHash('sha256').update(canonical(candidate)).digest();
  return crypto.timingSafeEqual(a, b);
}

/** A store kept in DATA_DIR/setup-code.txt, so every process sharing the folder agrees on one code. */
export function createFileSetupCodeStore(dataDir: string) {
  const file = path.join(dataDir, SETUP_CODE_FILE);
  const read = (): string | null => {
    try {
      const code = fs.readFileSync(file, 'utf8').trim();
      return code.length > 0 ? code : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  };
  return {
    file,
    current: read,
    consume() {
      fs.rmSync(file, { force: true });
    },
    /** Returns the existing code, or creates one (exclusively, so two processes never disagree). */
    ensure(): string {
      const existing = read();
      if (existing) return existing;
      fs.mkdirSync(dataDir, { recursive: true });
      try {
        fs.writeFileSync(file, `${generateSetupCode()}\n`, { mode: 0o600, flag: 'wx' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      return read()!;
    },
  } satisfies SetupCodeStore & { file: string; ensure(): string };
}

export interface SetupCodeLogger {
  warn(object: Record<string, unknown>, message: string): void;
}

/**
 * At start-up: while no staff account exists, make sure a code exists and show it to
 * the operator; once one exists, remove any stale code file. The code is a secret: it
 * goes to the terminal (`announce`) and the 0600 file, never into a log line.
 */
export function prepareSetupCode(options: {
  dataDir: string;
  staffExists: boolean;
  logger: SetupCodeLogger;
  announce?: (code: string, file: string) => void;
}): SetupCodeStore {
  const store = createFileSetupCodeStore(options.dataDir);
  if (options.staffExists) {
    store.consume();
    return store;
  }
  const code = store.ensure();
  options.announce?.(code, store.file);
  options.logger.warn({ file: store.file }, `No staff account yet: open /setup and enter the one-time setup code from ${store.file}`);
  return store;
}

/** A store held in memory (tests, or a deployment that hands the code over another way). */
export function createMemorySetupCodeStore(code: string | null = generateSetupCode()): SetupCodeStore {
  let current = code;
  return {
    current: () => current,
    consume: () => {
      current = null;
    },
  };
}
