import fs from 'node:fs';
import path from 'node:path';
import { openPglite } from '../src/db/client';
import { DataDirLockedError } from '../src/db/data-dir-lock';
import { readEnv } from '../src/env';
import { assertWritableFolder, backupFileName, requestBackup, writeSnapshot } from '../src/modules/backup';

/**
 * `npm run backup [FILE]`: a consistent snapshot of the embedded database (default
 * `DATA_DIR/backups/gatekeeper-<time>.backup`); prints the file. While Gatekeeper runs
 * it asks the running process to write it; otherwise it opens the data folder itself.
 */
async function main(): Promise<string> {
  const env = readEnv();
  if (env.DATABASE_URL) throw new Error('DATABASE_URL is set: back up PostgreSQL with pg_dump (see the README)');
  const target = path.resolve(process.argv[2] ?? path.join(env.dataDir, 'backups', backupFileName(new Date())));
  assertWritableFolder(path.dirname(target));
  if (!fs.existsSync(path.join(env.dataDir, 'db', 'PG_VERSION'))) throw new Error(`there is no database in ${env.dataDir} to back up`);
  try {
    const database = await openPglite(env.dataDir);
    try {
      return (await writeSnapshot(database, env.dataDir, target)).file;
    } finally {
      await database.close();
    }
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    const result = await requestBackup(env.dataDir, target);
    if ('error' in result) throw new Error(result.error);
    return result.file;
  }
}

main().then(
  (file) => process.stdout.write(`${file}\n`),
  (error: unknown) => {
    process.stderr.write(`gatekeeper: backup failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
