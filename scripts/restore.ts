import path from 'node:path';
import { readEnv } from '../src/env';
import { restoreSnapshot } from '../src/modules/backup';

/** `npm run restore FILE`: restores a backup into an empty DATA_DIR; refuses, changing nothing, otherwise. */
async function main(): Promise<string> {
  const file = process.argv[2];
  if (!file) throw new Error('name the backup file: npm run restore -- FILE');
  const env = readEnv();
  if (env.DATABASE_URL) throw new Error('DATABASE_URL is set: restore PostgreSQL with pg_restore (see the README)');
  const result = await restoreSnapshot(path.resolve(file), env.dataDir);
  return `restored ${result.members} member(s) into ${result.folder}`;
}

main().then(
  (line) => process.stdout.write(`gatekeeper: ${line}\n`),
  (error: unknown) => {
    process.stderr.write(`gatekeeper: restore refused: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
