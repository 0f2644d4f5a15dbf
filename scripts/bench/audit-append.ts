/**
 * Audited transactions per second on PostgreSQL, not part of `npm run bench`:
 * `BENCH_DATABASE_URL=postgres://… npx tsx scripts/bench/audit-append.ts [workers] [seconds] [sleepMs]`.
 * Each worker runs transactions that append one audit row, then wait `sleepMs` before
 * committing (a busy event loop delivering the commit late), on its own connection. With
 * a chain lock held from append to commit these transactions queue behind each other;
 * without one they overlap. The sealer runs during the load, as in the product, and the
 * chain is verified at the end.
 */
import crypto from 'node:crypto';
import { openPostgres } from '../../src/db/client';
import { runMigrations } from '../../src/db/migrate';
import { silentLogger } from '../../src/logger';
import { startAuditSealer, appendAudit, verifyAuditChain } from '../../src/modules/audit';
import { adminUrlOf } from './engines';

const serverUrl = process.env.BENCH_DATABASE_URL;
if (!serverUrl) throw new Error('set BENCH_DATABASE_URL');
const workers = Number(process.argv[2] ?? 8);
const seconds = Number(process.argv[3] ?? 10);
const sleepMs = Number(process.argv[4] ?? 5);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const name = `gk_audit_bench_${crypto.randomBytes(4).toString('hex')}`;
  const admin = await openPostgres({ url: adminUrlOf(serverUrl!), poolMax: 1, connectTimeoutSeconds: 5 });
  await admin.exec(`create database ${name}`);
  const url = new URL(serverUrl!);
  url.pathname = `/${name}`;
  const database = await openPostgres({ url: url.toString(), poolMax: workers + 2, connectTimeoutSeconds: 10 });
  try {
    await runMigrations(database);
    const sealer = startAuditSealer({ database, logger: silentLogger, intervalMs: 1_000 });

    let done = 0;
    const latencies: number[] = [];
    const end = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: workers }, async (_, worker) => {
        while (Date.now() < end) {
          const started = performance.now();
          await database.db.transaction(async (tx) => {
            await appendAudit(tx, {
              actor: { type: 'visitor', id: `${worker}` },
              action: 'bench.append',
              targetType: 'member',
              targetId: `${done}`,
            });
            await sleep(sleepMs);
          });
          latencies.push(performance.now() - started);
          done++;
        }
      }),
    );
    await sealer.stop();
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
    const chain = await verifyAuditChain(database.db);
    console.log(
      JSON.stringify({
        workers,
        seconds,
        sleepMs,
        transactions: done,
        perSecond: Math.round(done / seconds),
        p50Ms: at(0.5),
        p95Ms: at(0.95),
        chain,
      }),
    );
  } finally {
    await database.close();
    await admin.exec(`drop database if exists ${name} with (force)`);
    await admin.close();
  }
}

void main();
