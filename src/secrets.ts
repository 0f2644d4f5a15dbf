import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

function readSecretFile(file: string): Buffer | null {
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    return existing.length >= 32 ? Buffer.from(existing, 'hex') : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return null;
  }
}

/**
 * A secret that must survive restarts but never live in the database: taken from the
 * environment when given, else generated once into a 0600 file in DATA_DIR. Created
 * whole and exclusively (a scratch file hard-linked into place), so processes starting
 * together on one data folder (WEB_CONCURRENCY) all end up with the same secret.
 */
export function loadOrCreateSecret(dataDir: string, fileName: string, fromEnv?: string, bytes = 32): Buffer {
  if (fromEnv) return Buffer.from(fromEnv, 'utf8');
  const file = path.join(dataDir, fileName);
  const existing = readSecretFile(file);
  if (existing) return existing;
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = crypto.randomBytes(bytes);
  const scratch = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(scratch, secret.toString('hex'), { mode: 0o600 });
  try {
    fs.linkSync(scratch, file);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // another process created it first: use theirs; a short file (an old interrupted write) is replaced
    const theirs = readSecretFile(file);
    if (theirs) return theirs;
    fs.renameSync(scratch, file);
    return secret;
  } finally {
    fs.rmSync(scratch, { force: true });
  }
}
