import fs from 'node:fs';
import { openMemoryPglite, openPostgres } from '../db/client';
import { runMigrations } from '../db/migrate';
import { pgliteTemplateFile, postgresTemplateName, testRunId, adminUrl } from './template';

/** Migrates once per run: a PGlite dump every test file restores, and a PostgreSQL template database. */
export default async function globalSetup(): Promise<void> {
  const pglite = await openMemoryPglite();
  await runMigrations(pglite);
  // Every test file restores this dump (~70 times a run), and restoring costs about 1 s of CPU.
  // The product uses only template1 (PGlite's database): dropping template0 and postgres halves
  // the dump (29 → 15 MB), and a checkpoint spares each restore the replay of the migrations'
  // WAL. Measured: 1.17–1.50 → 0.94–1.14 s of CPU per restore.
  await pglite.exec(`update pg_database set datistemplate = false where datname = 'template0'`);
  await pglite.exec('drop database template0');
  await pglite.exec('drop database postgres');
  await pglite.exec('checkpoint');
  const dump = await pglite.pglite!.dumpDataDir('none');
  testRunId();
  fs.writeFileSync(pgliteTemplateFile(), Buffer.from(await dump.arrayBuffer()));
  await pglite.close();

  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const admin = await openPostgres({ url: adminUrl(url), connectTimeoutSeconds: 5 });
  const template = postgresTemplateName();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [template]);
  if (exists.rows.length === 0) {
    const scratch = `${template}_build_${process.pid}`;
    await admin.exec(`drop database if exists ${scratch}`);
    await admin.exec(`create database ${scratch}`);
    const db = await openPostgres({ url: withDatabase(url, scratch), connectTimeoutSeconds: 5 });
    await runMigrations(db);
    await db.close();
    try {
      await admin.exec(`alter database ${scratch} rename to ${template}`);
    } catch {
      await admin.exec(`drop database if exists ${scratch}`); // another run made it first
    }
  }
  await admin.close();
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
