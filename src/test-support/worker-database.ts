import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPglite, type Database, type EngineKind } from '../db/client';
import { runMigrations } from '../db/migrate';
import { resetDatabase } from './database';

/**
 * The database as the product runs it, for a file that measures how requests share it: on PGlite the
 * embedded engine in its worker thread (the test pool's databases run in-process), in a directory of
 * its own, migrated; on PostgreSQL the file's database, emptied. Opened before the file's tests and
 * closed after; the returned function gives it to the tests.
 */
export function useWorkerDatabase(engine: EngineKind, getDatabase: () => Database, dirPrefix: string): () => Database {
  let database: Database;
  let dir: string | undefined;
  beforeAll(async () => {
    if (engine === 'pglite') {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), dirPrefix));
      database = await openPglite(dir, {
        onWorkerCrash: (error) => {
          throw error;
        },
      });
      await runMigrations(database);
    } else {
      database = getDatabase();
      await resetDatabase(database);
    }
  });
  afterAll(async () => {
    if (dir) {
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  return () => database;
}
