import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A secret that must survive restarts but never live in the database: taken from the
 * environment when given, else generated once into a 0600 file in DATA_DIR.
 */
export function loadOrCreateSecret(dataDir: string, fileName: string, fromEnv?: string, bytes = 32): Buffer {
  if (fromEnv) return Buffer.from(fromEnv, 'utf8');
  const file = path.join(dataDir, fileName);
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return Buffer.from(existing, 'hex');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = crypto.randomBytes(bytes);
  fs.writeFileSync(file, secret.toString('hex'), { mode: 0o600 });
  return secret;
}
