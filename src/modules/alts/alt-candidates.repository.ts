import { sql, type SQL } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { accountCreatedMs } from '../../shared/discord-snowflake';
import { hasDeviceIdentity, type AnonymityCounts, type AttemptSignals, type ScoringContext } from './alt-scoring';

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
  /** the anonymity sets of the attempt's values, except addressFingerprint (scoringContext counts that among the candidates) */
  counts: Omit<AnonymityCounts, 'addressFingerprint'>;
}

const NO_COUNTS: CandidateLookup['counts'] = {
  fingerprint: 0,
  fingerprintNetworks: 0,
  address: 0,
  canvas: 0,
  webgl: 0,
  audio: 0,
  fonts: 0,
  browserTokenNetworks: 0,
  members: 0,
};

/** The hashes a lookup is made by, and the high-entropy components a same-network candidate must share one of. */
type ProbeKey = 'ipHash' | 'networkHash' | 'fingerprintHash' | 'canvasHash' | 'webglHash' | 'audioHash' | 'fontsHash' | 'browserTokenHash';

export type CandidateProbe = { [K in Exclude<ProbeKey, 'browserTokenHash'>]: string | null } & { browserTokenHash?: string | null };

/**
 * What the lookup of a new attempt is made by: its hashes, without a fingerprint that has
 * no high-entropy component (every browser whose probes failed shares it, and scoring never
 * counts it as a match: hasDeviceIdentity). With it, find_alt_candidates returns exactly
 * the stored attempts canBeFlagged accepts.
 */
export function candidateProbe(attempt: AttemptSignals): CandidateProbe {
  return {
    ipHash: attempt.ipHash,
    networkHash: attempt.networkHash,
    fingerprintHash: hasDeviceIdentity(attempt) ? attempt.fingerprintHash : null,
    canvasHash: attempt.canvasHash,
    webglHash: attempt.webglHash,
    audioHash: attempt.audioHash,
    fontsHash: attempt.fontsHash,
    browserTokenHash: attempt.browserTokenHash ?? null,
  };
}

export interface CandidateQueryOptions {
  /** the member the attempt is of; an SQL expression when the same statement writes the member (the sign-in's) */
  excludeMemberId: number | SQL;
  /** most attempts read per branch and returned in all */
  limit?: number;
}

/**
 * Enough for every household, shared device and campus network we expect; an address
 * or device with more other accounts than this in the retention window is a shared
 * network (carrier NAT, school) in all but name, and staff should mark it so. The window
 * puts the attempts on the same address with the same fingerprint first, so a member's
 * own older account at home is never crowded out by the newest strangers sharing a popular
 * fingerprint. An alt is still missed when it is older than the newest `limit` attempts of
 * BOTH its address and its fingerprint (a popular phone behind a carrier NAT), or when
 * it shares neither (another place and another device).
 */
export const DEFAULT_CANDIDATE_LIMIT = 50;

/**
 * How many of a network's newest attempts the same-network branch reads, index-only,
 * looking for shared components: more than the 200 the lookup used to read per hash,
 * and a bound on the cost of a huge network nobody marked shared.
 */
export const NETWORK_SCAN_LIMIT = 1000;

/**
 * True when the probe can have a candidate at all: a browser token, a fingerprint, an
 * address, or a high-entropy component (with the network, or rare on any network; the
 * network alone never flags).
 */
function hasLookup(probe: CandidateProbe): boolean {
  const known = (key: ProbeKey) => (probe[key] ?? null) !== null;
  const component = known('canvasHash') || known('webglHash') || known('audioHash') || known('fontsHash');
  return known('browserTokenHash') || known('fingerprintHash') || known('ipHash') || component;
}

/**
 * The candidate lookup of one new attempt: one call of `find_alt_candidates`
 * (src/db/functions/find_alt_candidates.sql, where the branches, the window and the
 * shared-network marking are spelled out),
 * a function so that PostgreSQL and PGlite plan it once per session instead of once per
 * attempt. Exactly the candidates scoring can flag (canBeFlagged in alt-scoring.ts),
 * same-address same-fingerprint attempts first, at most `limit`, by index lookups only
 * (alt-candidates.int.test.ts checks the plan on both engines, and
 * alt-candidates.agreement.int.test.ts the candidates against canBeFlagged). Null when the probe has
 * nothing to look up by.
 */
export function buildAltCandidateQuery(probe: CandidateProbe, options: CandidateQueryOptions): SQL | null {
  if (!hasLookup(probe)) return null;
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? DEFAULT_CANDIDATE_LIMIT), 1), 1000);
  // `?? null`: a JavaScript caller leaving a hash out means unknown, never an empty parameter
  const hash = (key: ProbeKey) => sql`${probe[key] ?? null}::text`;
  return sql`select find_alt_candidates(${hash('ipHash')}, ${hash('networkHash')}, ${hash('fingerprintHash')}, ${hash('canvasHash')}, ${hash('webglHash')}, ${hash('audioHash')}, ${hash('fontsHash')}, ${hash('browserTokenHash')}, ${options.excludeMemberId}::bigint, ${limit}::integer, ${NETWORK_SCAN_LIMIT}::integer) as lookup`;
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
  browser_token_hash: string | null;
  /** stored attempts only (the candidate lookup does not return it): the profile looked stock at consent; null when unknown */
  stock_profile?: boolean | null;
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
    browserTokenHash: row.browser_token_hash,
    stockProfile: row.stock_profile ?? null,
  };
}

/** One candidate as find_alt_candidates returns it (json: ids are numbers, the member's creation time epoch milliseconds). */
interface CandidateJson extends AttemptSignalsRow {
  id: number;
  member_id: number;
  member_discord_id: string;
  member_username: string;
  member_created_ms: number;
}

interface CountsJson {
  fingerprint: number;
  fingerprint_networks: number;
  address: number;
  canvas: number;
  webgl: number;
  audio: number;
  fonts: number;
  browser_token_networks: number;
  members: number;
}

export interface LookupRow {
  lookup: { shared_network: boolean; counts: CountsJson; candidates: CandidateJson[] };
}

function toCounts(json: CountsJson): CandidateLookup['counts'] {
  return {
    fingerprint: Number(json.fingerprint),
    fingerprintNetworks: Number(json.fingerprint_networks),
    address: Number(json.address),
    canvas: Number(json.canvas),
    webgl: Number(json.webgl),
    audio: Number(json.audio),
    fonts: Number(json.fonts),
    browserTokenNetworks: Number(json.browser_token_networks),
    members: Number(json.members),
  };
}

/**
 * What scoring needs besides the pair: the shared marking, the looked-up anonymity sets,
 * and how many other members on the attempt's address show its fingerprint, counted among
 * the candidates (the lookup puts every same-address same-fingerprint attempt it read first).
 */
export function scoringContext(attempt: AttemptSignals, lookup: CandidateLookup): ScoringContext {
  const sameDevice = new Set<number>();
  if (attempt.ipHash !== null && attempt.fingerprintHash !== null && hasDeviceIdentity(attempt)) {
    for (const c of lookup.candidates)
      if (c.ipHash === attempt.ipHash && c.fingerprintHash === attempt.fingerprintHash) sameDevice.add(c.memberId);
  }
  return { sharedNetwork: lookup.sharedNetwork, counts: { ...lookup.counts, addressFingerprint: sameDevice.size } };
}

function toCandidate(row: CandidateJson): CandidateAttempt {
  const memberId = Number(row.member_id);
  return {
    attemptId: Number(row.id),
    memberId,
    ...signalsFromRow(row),
    accountCreatedMs: accountCreatedMs(row.member_discord_id),
    member: { id: memberId, discordId: row.member_discord_id, username: row.member_username, createdAt: new Date(row.member_created_ms) },
  };
}

/**
 * The lookup from find_alt_candidates' value (its JSON, as the driver parses it), or the
 * empty lookup when there was nothing to look up by (`buildAltCandidateQuery` gave null).
 */
export function candidateLookupFrom(value: LookupRow['lookup'] | null): CandidateLookup {
  if (value === null) return { candidates: [], sharedNetwork: false, counts: NO_COUNTS };
  return { candidates: value.candidates.map(toCandidate), sharedNetwork: value.shared_network, counts: toCounts(value.counts) };
}

/** The candidates of one new attempt and its network's shared marking, in one round trip. */
export async function findAltCandidates(ex: Executor, probe: CandidateProbe, options: CandidateQueryOptions): Promise<CandidateLookup> {
  const query = buildAltCandidateQuery(probe, options);
  if (!query) return candidateLookupFrom(null);
  const [row] = await selectRows<LookupRow>(ex, query);
  if (!row) throw new Error('find_alt_candidates returned no row');
  return candidateLookupFrom(row.lookup);
}

export interface AltCandidateRepository {
  findCandidates: typeof findAltCandidates;
}

export const altCandidateRepository: AltCandidateRepository = { findCandidates: findAltCandidates };
