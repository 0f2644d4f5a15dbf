import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const IP_HASH_KEY_FILE = 'ip-hash.key';

const HEX_KEY = /^[0-9a-f]{64}$/i;

/**
 * The HMAC key for IP hashing, never stored in the database.
 *
 * - `IP_HASH_KEY` given: 64 hex characters are decoded to 32 bytes (so the content of a
 *   generated key file can be copied into the environment of other processes and give
 *   the same hashes); any other text (≥ 32 characters, checked by env.ts) is used as
 *   its UTF-8 bytes.
 * - else `DATA_DIR/ip-hash.key`: 32 random bytes as hex, created once with mode 0600.
 *   Creation is atomic (written aside, then hard-linked into place), so processes that
 *   start together on one data folder agree on one key.
 *
 * A key file that exists but is not a key is an error, never silently replaced: a new
 * key would make every stored hash unmatchable.
 */
export function loadOrCreateIpHashKey(dataDir: string, envKey?: string): Buffer {
  if (envKey !== undefined && envKey !== '') {
    const trimmed = envKey.trim();
    return HEX_KEY.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(envKey, 'utf8');
  }
  const file = path.join(dataDir, IP_HASH_KEY_FILE);
  const existing = readKeyFile(file);
  if (existing) return existing;

  fs.mkdirSync(dataDir, { recursive: true });
  const key = crypto.randomBytes(32);
  const scratch = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(scratch, `${key.toString('hex')}\n`, { mode: 0o600 });
  try {
    fs.linkSync(scratch, file);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // another process created it first: use theirs
    const theirs = readKeyFile(file);
    if (!theirs) throw new Error(`${file} appeared but holds no key`);
    return theirs;
  } finally {
    fs.rmSync(scratch, { force: true });
  }
}

function readKeyFile(file: string): Buffer | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (!HEX_KEY.test(text)) {
    throw new Error(
      `${file} does not hold an IP hash key (expected 64 hex characters). Restore it from a backup; deleting it makes every stored IP hash unmatchable.`,
    );
  }
  return Buffer.from(text, 'hex');
}
