import { openPostgres } from '../db/client';
import fs from 'node:fs';
import { adminUrl, pgliteTemplateFile, TEST_DATABASE_PREFIX, testRunId } from './template';

/** Drops the per-file PostgreSQL databases this run left behind. */
export default async function globalTeardown(): Promise<void> {
  fs.rmSync(pgliteTemplateFile(), { force: true });
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const admin = await openPostgres({ url: adminUrl(url), connectTimeoutSeconds: 5 });
  const leftovers = await admin.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [
    `${TEST_DATABASE_PREFIX}${testRunId()}_%`,
  ]);
  for (const { datname } of leftovers.rows) await admin.exec(`drop database if exists ${datname} with (force)`).catch(() => undefined);
  await admin.close();
}
