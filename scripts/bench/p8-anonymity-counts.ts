#!/usr/bin/env node
/**
 * EXPERIMENT (not product code): what the anonymity-set counts of the rarity-weighted rule
 * (p8-proposal.ts) cost at 1M stored attempts, read through the indexes the candidate lookup
 * already has — (hash, id, member_id) on the address, the fingerprint and each high-entropy
 * component — with no new index:
 *
 *   count(distinct member_id) among the newest `cap` attempts carrying the hash
 *
 * an index-only backward range scan of at most `cap` entries, whatever the hash's
 * popularity. The rule only asks "at most k other members?" with k ≤ 10, so the capped
 * count is exact for its questions unless fewer than k members made all `cap` newest
 * attempts of one hash (64 re-verifications by a handful of accounts).
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/ npx tsx scripts/bench/p8-anonymity-counts.ts [pglite|postgres] [attempts]
 */
import { performance } from 'node:perf_hooks';
import type { Database, EngineKind } from '../../src/db/client';
import { findAltCandidates } from '../../src/modules/alts';
import { createStore } from './engines';
import { ms, summarize } from './results';
import { seedCommunity } from './seed-data';

const CAP = 64;
const COLUMNS = ['ip_hash', 'fingerprint_hash', 'canvas_hash', 'webgl_hash', 'audio_hash', 'fonts_hash'] as const;

/** One statement: the six capped counts of one attempt's hashes. */
const COUNTS_SQL = `select ${COLUMNS.map(
  (c, i) =>
    `(select count(distinct member_id) from (select member_id from verification_attempts where ${c} >= $${i + 1} and ${c} <= $${i + 1} order by ${c} desc, id desc limit ${CAP}) s${i}) as ${c.replace('_hash', '')}`,
).join(', ')}`;

export async function measureAnonymityCounts(database: Database, samples: number): Promise<string> {
  const maxId = Number((await database.query<{ n: string | number }>('select max(id) as n from verification_attempts')).rows[0]?.n ?? 0);
  const ids = Array.from({ length: samples + 200 }, (_, i) => 1 + Math.floor((((i * 2654435761) % 2 ** 32) / 2 ** 32) * maxId));
  const { rows } = await database.query<Record<(typeof COLUMNS)[number] | 'network_hash' | 'member_id', string | null>>(
    `select ${COLUMNS.join(', ')}, network_hash, member_id from verification_attempts where id = any($1::bigint[]) and ip_hash is not null`,
    [ids],
  );
  const times: number[] = [];
  // the P1 lookup of the same attempts, timed in the same loop: a yardstick for the machine's load
  const lookups: number[] = [];
  let popular = 0;
  const plan = await database.query<{ 'QUERY PLAN': string }>(
    `explain ${COUNTS_SQL}`,
    COLUMNS.map((c) => rows[0]![c]),
  );
  for (const [i, row] of ids.map((_, i) => [i, rows[i % rows.length]!] as const)) {
    const started = performance.now();
    const { rows: counts } = await database.query<Record<string, number | string>>(
      COUNTS_SQL,
      COLUMNS.map((c) => row[c]),
    );
    const elapsed = performance.now() - started;
    const lookupStarted = performance.now();
    await findAltCandidates(
      database.db,
      {
        ipHash: row.ip_hash,
        networkHash: row.network_hash,
        fingerprintHash: row.fingerprint_hash,
        canvasHash: row.canvas_hash,
        webglHash: row.webgl_hash,
        audioHash: row.audio_hash,
        fontsHash: row.fonts_hash,
      },
      { excludeMemberId: Number(row.member_id) },
    );
    const lookup = performance.now() - lookupStarted;
    if (i >= 200) {
      times.push(elapsed);
      lookups.push(lookup);
      if (Object.values(counts[0] ?? {}).some((n) => Number(n) >= 10)) popular++;
    }
  }
  const s = summarize(times);
  const l = summarize(lookups);
  const indexOnly = plan.rows.map((r) => r['QUERY PLAN']).filter((l) => /Index Only Scan/.test(l)).length;
  return `${database.kind}: six capped anonymity counts per attempt (cap ${CAP}) p50 ${ms(s.p50, 2)}, p95 ${ms(s.p95, 2)}, p99 ${ms(s.p99, 2)}, max ${ms(s.max, 2)} over ${s.n} attempts; ${popular} of them had a popular hash (≥ 10 members); plan: ${indexOnly} index-only scans of 6; the P1 candidate lookup of the same attempts in the same loop: p50 ${ms(l.p50, 2)}, p99 ${ms(l.p99, 2)}`;
}

async function main() {
  const engine = (process.argv[2] ?? 'postgres') as EngineKind;
  const attempts = Number(process.argv[3] ?? 1_000_000);
  const store = await createStore(engine, { serverUrl: process.env.BENCH_DATABASE_URL, label: 'anonymity' });
  try {
    const database = await store.open();
    try {
      const took = await seedCommunity(database, { members: attempts, attempts }, (l) => process.stderr.write(`${l}\n`));
      process.stderr.write(`seeded ${attempts} in ${(took / 1000).toFixed(0)} s\n`);
      process.stdout.write(`${await measureAnonymityCounts(database, 2000)}\n`);
    } finally {
      await database.close();
    }
  } finally {
    await store.dispose();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
