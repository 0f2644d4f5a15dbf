import { sql } from 'drizzle-orm';
import type { Clock } from '../../clock';
import { selectRows, type Database, type Executor } from '../../db/client';
import { idArray } from '../../db/id-array';
import { retryOnSqlState } from '../../db/transaction-retry';
import { describeAltEvidence } from '../../shared/alt-evidence-words';
import { appendAudit } from '../audit';
import { queueRoleConnectionUpdate, type OutboxPort } from '../outbox';
import { candidateProbe, findAltCandidates, scoringContext, signalsFromRow, type AttemptSignalsRow } from './alt-candidates.repository';
import { recomputeAltCounters } from './alt-links.repository';
import {
  confidenceRank,
  isStrongerScore,
  RARITY,
  scoreCandidate,
  type AltConfidence,
  type AltScore,
  type AttemptSignals,
  type ScoringContext,
} from './alt-scoring';

/**
 * Re-scoring of stored alt links: the rarity of a shared value changes after two members are
 * linked (a device profile only they showed on a new server is later shown by a hundred
 * members), so a link is scored again, with today's anonymity counts, by the one rule
 * (scoreCandidate), exactly as a detection would score the pair now:
 *  - the newest RESCORE_ATTEMPTS_PER_MEMBER attempts of each member are compared pairwise,
 *    the newer attempt of a pair scored against the older with the counts of its own values
 *    (the candidate lookup, find_alt_candidates, read today), the strongest pair kept;
 *  - a link whose confidence changes is rewritten (confidence, method, evidence) with an audit
 *    line saying what the two share then and now, and both members are recounted, so the
 *    badges and the standing follow; a link the rule no longer finds at all stays listed as
 *    'possible' (weak evidence, counted nowhere) with today's evidence, so staff still see
 *    what the two share;
 *  - a link whose confidence stays but whose counts moved gets today's evidence (the words
 *    staff read), without an audit line;
 *  - on a server too small to judge rarity (RARITY.membersToJudgeRarity), the new-server prior
 *    reads whether each newer attempt's profile looked stock, as its attempt kept it; a link
 *    with an attempt stored before that was kept (unknown) is left as detection made it, since
 *    judging it stock could not tell a household's two phones from one device;
 *  - never touched: links staff made ('manual') or dismissed ("Not the same person"), links
 *    of a member with an open appeal (staff are deciding that member's standing: the link is
 *    re-scored on a pass after the appeal is decided), and links whose members have no stored
 *    attempt left (retention removed the evidence: nothing to score again).
 * A member with a staff alt status keeps it: the link's tier and the counters change, the
 * standing does not (memberStanding reads staff's status first). Discord roles are never
 * changed here: a member whose standing changed is treated by it at their next verification
 * or button press, or by staff. Their Linked Roles connection does follow: the alt side of a
 * link that becomes certain, or stops being certain, gets a role connection update queued in the
 * batch's transaction (when they gave a grant), so "not flagged as an alt" says what the record says.
 *
 * The pass walks the links in id order in batches, each read and scored outside any transaction
 * and written in one short transaction that also saves the position in the settings table
 * (RESCORE_CURSOR_KEY): safe to interrupt (the next run continues after the last committed
 * batch) and safe to run twice (an unchanged link writes nothing). A link that changed between
 * the read and the write (a detection, a dismissal) is left as it is until the next pass.
 */

export const ALT_RESCORE_JOB = 'alt-rescore';
export const RESCORE_CURSOR_KEY = 'alt_rescore_cursor';
export const RESCORE_BATCH_SIZE = 200;
export const RESCORE_ATTEMPTS_PER_MEMBER = 3;
const AUDIT_ACTOR = { type: 'system' as const, id: ALT_RESCORE_JOB, name: 'Alt link re-scoring' };

export interface RescoreOptions {
  batchSize?: number;
  /** stop after this many batches (the cursor keeps the place); the whole pass when absent */
  maxBatches?: number;
}

export interface RescoreResult {
  batches: number;
  /** links read */
  scanned: number;
  /** links whose confidence changed */
  changed: number;
  /** links whose confidence stayed and whose evidence (counts) was brought up to date */
  refreshed: number;
  /** links left for later: a member with an open appeal */
  deferred: number;
  /**
   * links left as they are: a member without stored attempts, or, on a server too small to
   * judge rarity, an attempt that does not say whether its profile looked stock
   */
  unscorable: number;
  /** the pass reached the last link (the next run starts again from the first) */
  passComplete: boolean;
}

interface LinkRow {
  id: number | string;
  main_member_id: number | string;
  alt_member_id: number | string;
  confidence: AltConfidence;
  detection_method: string;
  evidence: Record<string, unknown> | null;
  main_discord_id: string;
  alt_discord_id: string;
  appeal_open: boolean;
}

type AttemptRow = AttemptSignalsRow & { id: number | string; member_id: number | string };
interface StoredAttempt {
  id: number;
  memberId: number;
  signals: AttemptSignals;
}

/** A JSON value with its object keys sorted: stored jsonb comes back in its own key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

async function readCursor(tx: Executor): Promise<number> {
  const [row] = await selectRows<{ value: { afterId?: unknown } }>(tx, sql`select value from settings where key = ${RESCORE_CURSOR_KEY}`);
  const afterId = row?.value?.afterId;
  return typeof afterId === 'number' && Number.isSafeInteger(afterId) && afterId > 0 ? afterId : 0;
}

async function writeCursor(tx: Executor, afterId: number, now: Date): Promise<void> {
  await tx.execute(
    sql`insert into settings (key, value, updated_at) values (${RESCORE_CURSOR_KEY}, ${JSON.stringify({ afterId })}::jsonb, ${now.toISOString()}::timestamptz)
        on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
  );
}

/** The next batch of links re-scoring may change (read without locks: the writes check each link is unchanged). */
function readLinks(tx: Executor, afterId: number, limit: number): Promise<LinkRow[]> {
  return selectRows<LinkRow>(
    tx,
    sql`select l.id, l.main_member_id, l.alt_member_id, l.confidence, l.detection_method, l.evidence,
               mm.discord_id as main_discord_id, am.discord_id as alt_discord_id,
               exists (select 1 from appeals ap where ap.member_id in (l.main_member_id, l.alt_member_id) and ap.status = 'open') as appeal_open
        from alt_links l
        join members mm on mm.id = l.main_member_id
        join members am on am.id = l.alt_member_id
        where l.id > ${afterId} and l.detection_method <> 'manual' and l.dismissed_at is null
        order by l.id
        limit ${limit}`,
  );
}

/** The newest attempts of each member, newest first. */
async function readAttempts(tx: Executor, memberIds: number[]): Promise<Map<number, StoredAttempt[]>> {
  const byMember = new Map<number, StoredAttempt[]>();
  if (memberIds.length === 0) return byMember;
  const rows = await selectRows<AttemptRow>(
    tx,
    sql`select a.* from unnest(${idArray(memberIds)}) as m(id)
        cross join lateral (
          select id, member_id, ip_hash, network_hash, fingerprint_hash, canvas_hash, webgl_hash, audio_hash, fonts_hash,
                 screen_hash, timezone_hash, language_hash, platform_hash, browser_token_hash, stock_profile
          from verification_attempts v where v.member_id = m.id order by v.id desc limit ${RESCORE_ATTEMPTS_PER_MEMBER}
        ) a`,
  );
  for (const row of rows) {
    const attempt = { id: Number(row.id), memberId: Number(row.member_id), signals: signalsFromRow(row) };
    byMember.set(attempt.memberId, [...(byMember.get(attempt.memberId) ?? []), attempt]);
  }
  return byMember;
}

/**
 * The strongest score of the two members' attempts today, or null when either has none, or
 * when the server is too small to judge rarity and a newer attempt with a device fingerprint
 * does not say whether its profile looked stock (stored before that was kept). Each pair is
 * scored as a detection would: the newer attempt against the older one, with the anonymity
 * counts of the newer attempt's values (its candidate lookup, read once per attempt).
 */
async function rescorePair(
  tx: Executor,
  main: StoredAttempt[],
  alt: StoredAttempt[],
  contexts: Map<number, Promise<ScoringContext>>,
): Promise<AltScore | null> {
  if (main.length === 0 || alt.length === 0) return null;
  const contextOf = (attempt: StoredAttempt) => {
    let context = contexts.get(attempt.id);
    if (!context) {
      context = findAltCandidates(tx, candidateProbe(attempt.signals), { excludeMemberId: attempt.memberId }).then((lookup) =>
        scoringContext(attempt.signals, lookup),
      );
      contexts.set(attempt.id, context);
    }
    return context;
  };
  let best: AltScore | undefined;
  for (const a of main) {
    for (const b of alt) {
      const [newer, older] = a.id > b.id ? [a, b] : [b, a];
      const context = await contextOf(newer);
      if (!priorKnown(newer.signals, context)) return null;
      const score = scoreCandidate(newer.signals, older.signals, context);
      if (isStrongerScore(score, best)) best = score;
    }
  }
  return best ?? null;
}

/**
 * Whether the new-server prior can be applied to the attempt as stored: the server holds
 * enough members to judge rarity, or the attempt kept whether its profile looked stock, or it
 * has no fingerprint (a Limited Access attempt: nothing to be rare).
 */
function priorKnown(attempt: AttemptSignals, context: ScoringContext): boolean {
  return context.counts.members >= RARITY.membersToJudgeRarity || attempt.stockProfile != null || attempt.fingerprintHash === null;
}

/** What re-scoring decided for one link, to be written if the link is still as it was read. */
interface Decision {
  link: LinkRow;
  confidence: AltConfidence;
  detectionMethod: string;
  evidence: AltScore['evidence'];
}

/**
 * One batch: the links after the cursor are read and scored outside any transaction (reads
 * only: a verification meanwhile is never held up by the scoring, nor, on PGlite, queued
 * behind it); then one short transaction writes the decisions, each only if its link is still
 * exactly as it was read (a detection, a dismissal or a staff link meanwhile wins: the next
 * pass scores it again), recounts the members and saves the cursor.
 */
async function rescoreBatch(
  database: Database,
  clock: Clock,
  batchSize: number,
  outbox?: OutboxPort,
): Promise<Omit<RescoreResult, 'batches'>> {
  const { db } = database;
  const afterId = await readCursor(db);
  const links = await readLinks(db, afterId, batchSize);
  const result = { scanned: links.length, changed: 0, refreshed: 0, deferred: 0, unscorable: 0, passComplete: links.length < batchSize };
  const attempts = await readAttempts(db, [...new Set(links.flatMap((l) => [Number(l.main_member_id), Number(l.alt_member_id)]))]);
  const contexts = new Map<number, Promise<ScoringContext>>();
  const decisions: Decision[] = [];
  for (const link of links) {
    if (link.appeal_open) {
      result.deferred++;
      continue;
    }
    const score = await rescorePair(
      db,
      attempts.get(Number(link.main_member_id)) ?? [],
      attempts.get(Number(link.alt_member_id)) ?? [],
      contexts,
    );
    if (!score) {
      result.unscorable++;
      continue;
    }
    // the rule no longer links them at all: the link stays as weak evidence of what they share
    const confidence = score.confidence ?? 'possible';
    if (confidence === link.confidence && canonical(score.evidence) === canonical(link.evidence ?? {})) continue;
    decisions.push({ link, confidence, detectionMethod: score.detectionMethod ?? link.detection_method, evidence: score.evidence });
  }

  return database.db.transaction(async (tx) => {
    const now = clock.now();
    const recount = new Set<number>();
    // alt sides whose link became certain or stopped being certain: their standing may have changed
    const standingMoved = new Set<string>();
    for (const { link, confidence, detectionMethod, evidence } of decisions) {
      const changed = confidence !== link.confidence;
      const written = await selectRows<{ id: number | string }>(
        tx,
        sql`update alt_links set confidence = ${confidence}, detection_method = ${detectionMethod}, evidence = ${JSON.stringify(evidence)}::jsonb
            ${changed ? sql`, updated_at = ${now.toISOString()}::timestamptz` : sql``}
            where id = ${Number(link.id)} and confidence = ${link.confidence} and detection_method = ${link.detection_method}
              and evidence = ${JSON.stringify(link.evidence ?? {})}::jsonb and dismissed_at is null
            returning id`,
      );
      if (written.length === 0) continue;
      if (!changed) {
        result.refreshed++;
        continue;
      }
      result.changed++;
      recount.add(Number(link.main_member_id)).add(Number(link.alt_member_id));
      if ((confidence === 'certain') !== (link.confidence === 'certain')) standingMoved.add(link.alt_discord_id);
      const before = describeAltEvidence({
        confidence: link.confidence,
        detectionMethod: link.detection_method,
        evidence: link.evidence ?? {},
      });
      const after = describeAltEvidence({ confidence, detectionMethod, evidence });
      await appendAudit(
        tx,
        {
          actor: AUDIT_ACTOR,
          action: 'alt_link.rescore',
          targetType: 'member',
          targetId: link.alt_discord_id,
          details: {
            linkId: Number(link.id),
            mainDiscordId: link.main_discord_id,
            altDiscordId: link.alt_discord_id,
            from: link.confidence,
            to: confidence,
            why: `${confidenceRank(confidence) < confidenceRank(link.confidence) ? 'downgraded' : 'upgraded'}: now ${after}; before ${before}`,
          },
        },
        now,
      );
    }
    if (recount.size > 0) await recomputeAltCounters(tx, [...recount]);
    if (outbox) for (const discordId of standingMoved) await queueRoleConnectionUpdate(tx, outbox, discordId);
    const last = links.at(-1);
    await writeCursor(tx, result.passComplete || !last ? 0 : Number(last.id), now);
    return result;
  });
}

/** deadlock, serialization failure: a verification locked the same members meanwhile */
const RETRYABLE = new Set(['40P01', '40001']);

/** Re-scores stored links batch by batch from the saved cursor, until the pass ends or maxBatches ran. */
export async function rescoreAltLinks(
  deps: {
    database: Database;
    clock: Clock;
    /** queues Linked Roles connection updates of members whose standing moved */ outbox?: OutboxPort;
  },
  options: RescoreOptions = {},
): Promise<RescoreResult> {
  const batchSize = Math.max(1, Math.trunc(options.batchSize ?? RESCORE_BATCH_SIZE));
  const total: RescoreResult = { batches: 0, scanned: 0, changed: 0, refreshed: 0, deferred: 0, unscorable: 0, passComplete: false };
  while (options.maxBatches === undefined || total.batches < options.maxBatches) {
    const batch = await retryOnSqlState(() => rescoreBatch(deps.database, deps.clock, batchSize, deps.outbox), {
      states: RETRYABLE,
      baseDelayMs: 50,
    });
    total.batches++;
    total.scanned += batch.scanned;
    total.changed += batch.changed;
    total.refreshed += batch.refreshed;
    total.deferred += batch.deferred;
    total.unscorable += batch.unscorable;
    if (batch.passComplete) {
      total.passComplete = true;
      break;
    }
  }
  return total;
}
