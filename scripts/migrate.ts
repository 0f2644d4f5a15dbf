import { openDatabase } from '../src/db/client';
import { appliedMigrationCount, runMigrations } from '../src/db/migrate';
import { readEnv } from '../src/env';

/** `npm run migrate` (Procfile `release:`): applies pending migrations and exits. */
async function main(): Promise<void> {
  const env = readEnv();
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.dataDir,
    connectTimeoutSeconds: env.DATABASE_CONNECT_TIMEOUT_SECONDS,
  });
  try {
    const before = await appliedMigrationCount(database);
    await runMigrations(database);
    const after = await appliedMigrationCount(database);
    process.stdout.write(`gatekeeper: ${after - before} migration(s) applied, ${after} in total (${database.kind})\n`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`gatekeeper: migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
