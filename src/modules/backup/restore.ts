import fs from 'node:fs';
import path from 'node:path';
import { PGlite, type Extension } from '@electric-sql/pglite';
import { openMemoryPglite } from '../../db/client';
import { acquireDataDirLock, DataDirLockedError } from '../../db/data-dir-lock';
import { BackupFileError, decodeBackup, KEY_FILES } from './backup-file';

// The contrib entry point's types are published as ESM only; its CommonJS build is real.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };

/** What a restore refuses to write over: a database or key files already in the folder. */
function occupant(dataDir: string): string | null {
  const dbFolder = path.join(dataDir, 'db');
  if (fs.existsSync(dbFolder) && fs.readdirSync(dbFolder).length > 0) return dbFolder;
  for (const name of KEY_FILES) if (fs.existsSync(path.join(dataDir, name))) return path.join(dataDir, name);
  return null;
}

/** Opens the dump in memory first: a file that is not a Gatekeeper database is refused before the folder is touched. */
async function countMembers(database: Buffer, file: string): Promise<number> {
  let opened: Awaited<ReturnType<typeof openMemoryPglite>> | undefined;
  try {
    opened = await openMemoryPglite(new Blob([new Uint8Array(database)]));
    const result = await opened.query<{ count: number }>('select count(*)::int as count from members');
    return result.rows[0]?.count ?? 0;
  } catch {
    throw new BackupFileError(`${file} does not hold a Gatekeeper database`);
  } finally {
    await opened?.close().catch(() => undefined);
  }
}

/**
 * Restores a backup into an empty data folder. Refuses, changing nothing, when the
 * product runs on the folder, when the folder already holds a database or keys, or
 * when the file is damaged or not a Gatekeeper backup.
 */
export async function restoreSnapshot(file: string, dataDir: string): Promise<{ members: number; folder: string }> {
  let release: (() => void) | undefined;
  const folderExisted = fs.existsSync(dataDir);
  try {
    if (folderExisted) release = acquireDataDirLock(dataDir);
  } catch (error) {
    if (error instanceof DataDirLockedError) throw new BackupFileError(`Gatekeeper is running on ${dataDir}: stop it before restoring`);
    throw error;
  }
  try {
    const existing = occupant(dataDir);
    if (existing)
      throw new BackupFileError(`the data folder is not empty (${existing} exists): move it aside or point DATA_DIR at an empty folder`);
    const backup = decodeBackup(file);
    const members = await countMembers(backup.database, file);
    release ??= acquireDataDirLock(dataDir);
    const dbFolder = path.join(dataDir, 'db');
    try {
      const pglite = await PGlite.create(dbFolder, { extensions: { pg_trgm }, loadDataDir: new Blob([new Uint8Array(backup.database)]) });
      await pglite.query('select 1');
      await pglite.close();
      for (const [name, value] of Object.entries(backup.keys)) fs.writeFileSync(path.join(dataDir, name), value, { mode: 0o600 });
    } catch (error) {
      fs.rmSync(dbFolder, { recursive: true, force: true });
      for (const name of Object.keys(backup.keys)) fs.rmSync(path.join(dataDir, name), { force: true });
      throw new BackupFileError(`could not write the database into ${dbFolder}: ${(error as Error).message}`);
    }
    return { members, folder: dataDir };
  } finally {
    release?.();
  }
}
