import { performance } from 'node:perf_hooks';
import { createManualClock } from '../../src/clock';
import type { Database } from '../../src/db/client';
import { RESCORE_BATCH_SIZE, RESCORE_CURSOR_KEY, rescoreAltLinks, type RescoreResult } from '../../src/modules/alts';
import { recordPostgresStatements, type StatementLog } from '../../src/test-support/statement-counter';
import { mb, ms, type FigureResult } from './results';

/**
 * P11: the alt re-scoring job (src/modules/alts/alt-rescoring.ts) on the community store
 * (1M attempts). The seed makes no links, so links are made first the way detection would
 * have found them on a new server: every pair of members sharing an address that at most
 * four members use (households; carrier NAT addresses excluded) or a fingerprint that at
 * most four members show (shared devices), stored as medium with no counts, as if linked
 * while every value was rare. Then `batches` batches of the real job run (each a
 * transaction: the links, both members' newest attempts, one candidate lookup per attempt,
 * scoring, the writes, the recount, the cursor), timed, with the statements sent counted on
 * PostgreSQL (PGlite runs the same code) and the process's heap and RSS sampled every 50 ms;
 * then the same links again (nothing left to change: what a second pass costs). The whole
 * pass is extrapolated from the time per link.
 */
export async function measureAltRescore(database: Database, options: { batches: number; attempts: number }): Promise<FigureResult[]> {
  const madeStarted = performance.now();
  await database.exec(`
    insert into alt_links (main_member_id, alt_member_id, confidence, detection_method, evidence)
    select distinct least(a.member_id, b.member_id), greatest(a.member_id, b.member_id), 'medium', 'both', '{}'::jsonb
    from (select ip_hash from verification_attempts where ip_hash is not null group by ip_hash having count(distinct member_id) between 2 and 4) shared
    join verification_attempts a on a.ip_hash = shared.ip_hash
    join verification_attempts b on b.ip_hash = shared.ip_hash and b.member_id <> a.member_id
    on conflict do nothing;
    insert into alt_links (main_member_id, alt_member_id, confidence, detection_method, evidence)
    select distinct least(a.member_id, b.member_id), greatest(a.member_id, b.member_id), 'medium', 'fingerprint', '{}'::jsonb
    from (select fingerprint_hash from verification_attempts where fingerprint_hash is not null group by fingerprint_hash having count(distinct member_id) between 2 and 4) shared
    join verification_attempts a on a.fingerprint_hash = shared.fingerprint_hash
    join verification_attempts b on b.fingerprint_hash = shared.fingerprint_hash and b.member_id <> a.member_id
    where not exists (select 1 from alt_links l where l.main_member_id = least(a.member_id, b.member_id) and l.alt_member_id = greatest(a.member_id, b.member_id))
    on conflict do nothing;
  `);
  await database.exec('vacuum analyze alt_links');
  const links = Number((await database.query<{ n: string | number }>('select count(*) as n from alt_links')).rows[0]?.n ?? 0);
  const madeMs = performance.now() - madeStarted;
  await database.query('delete from settings where key = $1', [RESCORE_CURSOR_KEY]);
  const clock = createManualClock(new Date());

  const pass = async (label: string) => {
    const statements: StatementLog | null = database.kind === 'postgres' ? recordPostgresStatements() : null;
    const heapBefore = process.memoryUsage().heapUsed;
    let peakHeap = heapBefore;
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      const usage = process.memoryUsage();
      peakHeap = Math.max(peakHeap, usage.heapUsed);
      peakRss = Math.max(peakRss, usage.rss);
    }, 50);
    const started = performance.now();
    let result: RescoreResult;
    try {
      result = await rescoreAltLinks({ database, clock }, { maxBatches: options.batches });
    } finally {
      clearInterval(sampler);
    }
    const elapsed = performance.now() - started;
    const sent = statements?.take().length ?? null;
    statements?.stop();
    return { label, result, elapsed, sent, heapGrowth: peakHeap - heapBefore, peakRss };
  };

  const first = await pass('first');
  // the same links again: the cursor back to the start, every link already up to date
  await database.query('delete from settings where key = $1', [RESCORE_CURSOR_KEY]);
  const second = await pass('second');

  const perLink = first.elapsed / Math.max(1, first.result.scanned);
  const wholePassMinutes = (perLink * links) / 60_000;
  const describe = (p: typeof first) =>
    `${p.label} run: ${p.result.scanned.toLocaleString('en')} links in ${p.result.batches} batches of ${RESCORE_BATCH_SIZE}, ${ms(p.elapsed, 0)} (${ms(p.elapsed / Math.max(1, p.result.scanned), 2)} per link); ` +
    `${p.result.changed} changed, ${p.result.refreshed} refreshed, ${p.result.unscorable} without attempts; ` +
    `${p.sent === null ? 'statements not counted on PGlite (same code as PostgreSQL)' : `${p.sent.toLocaleString('en')} statements (${(p.sent / Math.max(1, p.result.scanned)).toFixed(1)} per link)`}; ` +
    `heap growth at most ${mb(p.heapGrowth)}, peak RSS ${mb(p.peakRss)}`;
  return [
    {
      figure: 'P11 alt re-scoring per link',
      engine: database.kind,
      value: `${ms(perLink, 2)} per link`,
      target: 'a whole pass within a day',
      pass: wholePassMinutes <= 24 * 60,
      note:
        `P11 ${database.kind}: ${options.attempts.toLocaleString('en')} attempts; ${links.toLocaleString('en')} links made in ${ms(madeMs, 0)}; ${describe(first)}. ${describe(second)}. ` +
        `A whole pass over ${links.toLocaleString('en')} links ≈ ${wholePassMinutes.toFixed(1)} min at this rate (timings on a shared machine: read them with the machine-speed line).`,
    },
  ];
}
