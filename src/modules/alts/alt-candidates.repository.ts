import { sql, type SQL } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import type { AttemptSignals } from './alt-scoring';

/** A stored attempt that shares the address, the network or the fingerprint with the new one. */
export type CandidateAttempt = AttemptSignals & {
  attemptId: number;
  memberId: number;
  member: { id: number; discordId: string; username: string; createdAt: Date };
};

/** What scoring needs for one new attempt: the candidates and whether its network is marked shared. */
export interface CandidateLookup {
  candidates: CandidateAttempt[];
  /** the attempt's network is marked shared (shared_networks): address and network matches do not count */
  sharedNetwork: boolean;
}

/**
 * The hashes candidates are looked up by, each through its own index, in the order the
 * window of `limit` candidates is filled (newest first within a branch). Exactly the
 * candidates scoring can flag (canBeFlagged in alt-scoring.ts): the same fingerprint
 * first (medium or certain), then the same address, then the same network with at
 * least one high-entropy component in common (the network alone never flags); on a
 * network marked shared only the fingerprint counts. A device component alone never
 * flags, so it is no lookup: popular ones (a GPU model, the default font set) would
 * fill any window with strangers (P1 bench, 1M attempts: 200 rows read per lookup, 7.5
 * flagged, before).
 */
const BRANCHES = [
  { column: 'fingerprint_hash', key: 'fingerprintHash', onSharedNetwork: true, needsComponent: false },
  { column: 'ip_hash', key: 'ipHash', onSharedNetwork: false, needsComponent: false },
  { column: 'network_hash', key: 'networkHash', onSharedNetwork: false, needsComponent: true },
] as const;

/** The high-entropy components a same-network candidate must share one of (attempts_network_hash_idx carries them). */
const NETWORK_COMPONENTS = [
  ['canvasHash', 'canvas_hash'],
  ['webglHash', 'webgl_hash'],
  ['audioHash', 'audio_hash'],
  ['fontsHash', 'fonts_hash'],
] as const;

export type CandidateProbe = { [K in (typeof BRANCHES)[number]['key'] | (typeof NETWORK_COMPONENTS)[number][0]]: string | null };

export interface CandidateQueryOptions {
  excludeMemberId: number;
  /** most attempts read per branch and returned in all */
  limit?: number;
}

/**
 * Enough for every household, shared device and campus network we expect; an address
 * or device with more other accounts than this in the retention window is a shared
 * network (carrier NAT, school) in all but name, and staff should mark it so. The
 * newest are kept, fingerprint matches first, so a same-device alt is never crowded out.
 */
export const DEFAULT_CANDIDATE_LIMIT = 50;

/**
 * How many of a network's newest attempts the same-network branch reads, index-only,
 * looking for shared components: more than the 200 the lookup used to read per hash,
 * and a bound on the cost of a huge network nobody marked shared.
 */
export const NETWORK_SCAN_LIMIT = 1000;

/** `col = v` on the high-entropy components the probe has, or null when it has none. */
function sharesAComponent(probe: CandidateProbe): SQL | null {
  const known = NETWORK_COMPONENTS.filter(([key]) => (probe[key] ?? null) !== null).map(([key, column]) => sql`${sql.identifier(column)} = ${probe[key]}`);
  return known.length === 0 ? null : sql`(${sql.join(known, sql` or `)})`;
}

/**
 * One statement, index lookups only, never a scan (DESIGN.md §8): one branch per known
 * hash, each `where <hash> = $x and member_id <> $m order by id desc limit $n` (spelled
 * as below), which PostgreSQL answers with an index-only backward range scan of the
 * (hash, id, member_id) index reading about n entries, however popular the hash (a
 * carrier NAT). The network branch's index also carries the four high-entropy
 * components, so its "shares one" filter is read from the index too (a /24 with one
 * matching neighbour among hundreds costs index entries, not row fetches). The
 * member filter sits inside each branch so a member's own
 * re-verifications cannot crowd the other accounts out of the newest n. The branches
 * are glued with UNION ALL (an OR across columns would need a bitmap over every match)
 * and the ids joined back to their rows through the primary key.
 *
 * The shared-network marking is read in the same statement: on a network staff marked
 * shared, address and network matches do not count (alt-scoring.ts), so their branches
 * are switched off (a one-time filter) and cannot crowd same-device attempts out of the
 * window; every row carries the marking for scoring, and with no candidate one row of
 * nulls still does. alt-candidates.int.test.ts checks the plan with EXPLAIN on both engines.
 */
export function buildAltCandidateQuery(probe: CandidateProbe, options: CandidateQueryOptions): SQL | null {
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? DEFAULT_CANDIDATE_LIMIT), 1), 1000);
  const branches: SQL[] = [];
  for (const [index, { column, key, onSharedNetwork, needsComponent }] of BRANCHES.entries()) {
    // `?? null`: a JavaScript caller leaving a hash out means unknown, never an empty parameter
    const value = probe[key] ?? null;
    if (value === null) continue;
    const component = needsComponent ? sharesAComponent(probe) : null;
    if (needsComponent && component === null) continue;
    const col = sql.identifier(column);
    const counts = onSharedNetwork ? sql`` : sql` and not flag.shared_network`;
    // `col >= v and col <= v` is `col = v` for these hex strings, but unlike `=` it keeps
    // `order by col desc, id desc` from collapsing to `order by id desc`, an order the
    // primary key also offers: the planner would then sometimes walk the whole table
    // backwards hoping to meet a popular hash early, and a popular hash whose rows are
    // all old (last month's raid) would cost a full scan. This order only the
    // (hash, id, member_id, …) index provides, so each branch is a range of that index.
    const range = sql`from verification_attempts where ${col} >= ${value} and ${col} <= ${value} and member_id <> ${options.excludeMemberId}${counts} order by ${col} desc, id desc`;
    const rank = sql.raw(String(index + 1));
    // the same-network branch looks at the newest NETWORK_SCAN_LIMIT entries of the network (a bound
    // on a huge unmarked network) and keeps those sharing a component
    branches.push(
      component
        ? sql`(select id, ${rank} as rank from (select id, canvas_hash, webgl_hash, audio_hash, fonts_hash ${range} limit ${NETWORK_SCAN_LIMIT}) as recent where ${component} order by id desc limit ${limit})`
        : sql`(select id, ${rank} as rank ${range} limit ${limit})`,
    );
  }
  if (branches.length === 0) return null;
  // The n best distinct ids (fingerprint, then address, then network; newest first
  // within a rank), then each row fetched by primary key through LATERAL subqueries with LIMIT 1,
  // which the planner cannot turn into a hash join over a scan of the whole table: at
  // most 3n index entries and 2n key lookups, whatever the size. Only what scoring and
  // the link need is read.
  return sql`
    select flag.shared_network, c.*
    from (select exists (select 1 from shared_networks sn where sn.network_hash = ${probe.networkHash}) as shared_network) as flag
    left join lateral (
      select a.id, a.member_id, a.ip_hash, a.network_hash, a.fingerprint_hash,
             a.canvas_hash, a.webgl_hash, a.audio_hash, a.fonts_hash, a.screen_hash, a.timezone_hash,
             a.language_hash, a.platform_hash,
             m.discord_id as member_discord_id, m.username as member_username, m.created_at as member_created_at
      from (
        select hits.id from (${sql.join(branches, sql` union all `)}) as hits
        group by hits.id order by min(hits.rank), hits.id desc limit ${limit}
      ) as top
      cross join lateral (select * from verification_attempts va where va.id = top.id limit 1) as a
      cross join lateral (select discord_id, username, created_at from members mm where mm.id = a.member_id limit 1) as m
    ) as c on true
    order by c.id desc`;
}

/** The stored hashes of an attempt, as SQL returns them (snake_case columns). */
export interface AttemptSignalsRow {
  ip_hash: string | null;
  network_hash: string | null;
  fingerprint_hash: string | null;
  canvas_hash: string | null;
  webgl_hash: string | null;
  audio_hash: string | null;
  fonts_hash: string | null;
  screen_hash: string | null;
  timezone_hash: string | null;
  language_hash: string | null;
  platform_hash: string | null;
}

/** An attempt's signals from its row: the one mapping of column to signal. */
export function signalsFromRow(row: AttemptSignalsRow): AttemptSignals {
  return {
    ipHash: row.ip_hash,
    networkHash: row.network_hash,
    fingerprintHash: row.fingerprint_hash,
    canvasHash: row.canvas_hash,
    webglHash: row.webgl_hash,
    audioHash: row.audio_hash,
    fontsHash: row.fonts_hash,
    screenHash: row.screen_hash,
    timezoneHash: row.timezone_hash,
    languageHash: row.language_hash,
    platformHash: row.platform_hash,
  };
}

/** One candidate; every column but shared_network is null on the row that says there is none. */
interface CandidateRow extends AttemptSignalsRow {
  shared_network: boolean;
  id: number | string | null;
  member_id: number | string;
  member_discord_id: string;
  member_username: string;
  member_created_at: Date | string;
}

const toDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));

function toCandidate(row: CandidateRow): CandidateAttempt {
  const memberId = Number(row.member_id);
  return {
    attemptId: Number(row.id),
    memberId,
    ...signalsFromRow(row),
    member: { id: memberId, discordId: row.member_discord_id, username: row.member_username, createdAt: toDate(row.member_created_at) },
  };
}

/** The candidates of one new attempt and its network's shared marking, in one round trip. */
export async function findAltCandidates(ex: Executor, probe: CandidateProbe, options: CandidateQueryOptions): Promise<CandidateLookup> {
  const query = buildAltCandidateQuery(probe, options);
  if (!query) return { candidates: [], sharedNetwork: false };
  const rows = await selectRows<CandidateRow>(ex, query);
  return {
    candidates: rows.filter((row) => row.id !== null).map(toCandidate),
    sharedNetwork: rows[0]?.shared_network === true,
  };
}

export interface AltCandidateRepository {
  findCandidates: typeof findAltCandidates;
}

export const altCandidateRepository: AltCandidateRepository = { findCandidates: findAltCandidates };
