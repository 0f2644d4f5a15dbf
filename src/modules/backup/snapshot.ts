import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../../db/client';
import { BackupFileError, encodeBackup, KEY_FILES, writeFileAtomically } from './backup-file';

/**
 * Writes a consistent snapshot of the embedded database (and the data folder's key
 * files) to `file`. The process that has the database open makes it: a checkpoint
 * first, so the data files hold what the write-ahead log has; then the dump runs while
 * no transaction is open and no statement runs (PGlite's own locks), so it is taken
 * between two transactions even while requests keep writing.
 */
export async function writeSnapshot(
  database: Database,
  dataDir: string,
  file: string,
  now = new Date(),
): Promise<{ file: string; bytes: number }> {
  const pglite = database.pglite;
  if (database.kind !== 'pglite' || !pglite)
    throw new BackupFileError('this database is PostgreSQL: back it up with pg_dump (see the README)');
  await pglite.exec('CHECKPOINT');
  const dump = await pglite.dumpDataDir('gzip');
  const keys: Record<string, Buffer> = {};
  for (const name of KEY_FILES) {
    const keyFile = path.join(dataDir, name);
    if (fs.existsSync(keyFile)) keys[name] = fs.readFileSync(keyFile);
  }
  const bytes = encodeBackup({ database: Buffer.from(await dump.arrayBuffer()), keys, createdAt: now });
  writeFileAtomically(file, bytes);
  return { file, bytes: bytes.length };
}
