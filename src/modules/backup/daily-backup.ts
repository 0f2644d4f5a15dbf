import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../../db/client';
import { backupFileName } from './backup-file';
import { writeSnapshot } from './snapshot';

const OWN_FILE = /^gatekeeper-.*\.backup$/;

/** The daily backup: a snapshot in `DATA_DIR/backups`, then only the newest `keep` of them stay. */
export async function runDailyBackup(deps: {
  database: Database;
  dataDir: string;
  keep: number;
  now?: Date;
}): Promise<{ file: string; removed: string[] }> {
  const folder = path.join(deps.dataDir, 'backups');
  const { file } = await writeSnapshot(deps.database, deps.dataDir, path.join(folder, backupFileName(deps.now ?? new Date())), deps.now);
  // names sort by time; only files this job names are ever removed
  const own = fs
    .readdirSync(folder)
    .filter((name) => OWN_FILE.test(name))
    .sort();
  const removed = own.slice(0, Math.max(0, own.length - deps.keep));
  for (const name of removed) fs.rmSync(path.join(folder, name), { force: true });
  return { file, removed };
}
