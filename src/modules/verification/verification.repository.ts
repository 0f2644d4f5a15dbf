import { and, eq, sql, type SQL } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { auditAppendCall } from '../audit';
import { members, verificationAttempts } from '../../db/schema';
import { NO_COMPONENT_HASHES, type FingerprintComponentHashes } from '../fingerprint';
import type { IpHashes } from '../network';
import type { VpnCheckResult, VpnOutcome } from '../vpn';
import type { ManualAltStatus } from '../../shared/member-badges';
import type { WindowAttempt } from '../raid';

export { findMemberRowByDiscordId, type MemberRow } from '../members';

export type AttemptRow = typeof verificationAttempts.$inferSelect;

export interface VerifiedIdentity {
  discordId: string;
  username: string;
  avatarUrl: string | null;
}

/** What one completed sign-in brings; the evidence is null for Limited Access (data minimisation). */
export interface AttemptEvidence {
  ip: IpHashes | null;
  fingerprintHash: string | null;
  components: FingerprintComponentHashes | null;
  /** keyed hash of the browser profile's token; null when none was kept */
  browserTokenHash?: string | null;
  /** the profile looks like a stock phone (judged at consent; scoring's new-server prior reads it; kept on the attempt for re-scoring) */
  stockProfile?: boolean | null;
}

/** The member of a sign-in, as alt detection needs it. */
export interface SignedInMember {
  id: number;
  discordId: string;
  createdAt: Date;
  /** its alt counters as stored (what alt detection returns when no link changes) */
  counters: { altsFound: number; isLinkedAsAlt: boolean };
  /** staff's manual alt status, which with the links decides whether the member is a certain alt */
  manualAltStatus: ManualAltStatus | null;
  /** what Discord access staff or the button gave before this sign-in (the join's roles follow it: joinRoles) */
  guildAccess: 'pending' | 'verified' | 'limited' | 'denied';
}

type SignInInput = {
  identity: VerifiedIdentity;
  outcome: Exclude<VpnOutcome, 'denied'>;
  vpn: VpnCheckResult;
  usedVpn: boolean;
  evidence: AttemptEvidence;
  now: Date;
};

/**
 * Creates or refreshes the member of a completed sign-in. A Limited Access outcome keeps
 * only the Discord ID and username (plus the VPN flag, provider and timestamps): any
 * avatar, fingerprint or network stored earlier is cleared.
 */
function upsertMember(tx: Executor, input: SignInInput) {
  const limited = input.outcome === 'limited_access';
  const values = {
    discordId: input.identity.discordId,
    username: input.identity.username,
    avatarUrl: limited ? null : input.identity.avatarUrl,
    status: input.outcome,
    usedVpn: input.usedVpn,
    vpnAttempts: input.usedVpn ? 1 : 0,
    vpnProvider: input.usedVpn ? input.vpn.provider : null,
    verificationCount: 1,
    fingerprintHash: limited ? null : input.evidence.fingerprintHash,
    networkHash: limited ? null : (input.evidence.ip?.networkHash ?? null),
    verifiedAt: input.now,
    lastSeenAt: input.now,
    createdAt: input.now,
    updatedAt: input.now,
  };
  return tx
    .insert(members)
    .values(values)
    .onConflictDoUpdate({
      target: members.discordId,
      set: {
        username: values.username,
        avatarUrl: values.avatarUrl,
        status: values.status,
        usedVpn: sql`${members.usedVpn} or ${values.usedVpn}`,
        vpnAttempts: sql`${members.vpnAttempts} + ${values.vpnAttempts}`,
        vpnProvider: input.usedVpn ? values.vpnProvider : sql`${members.vpnProvider}`,
        verificationCount: sql`${members.verificationCount} + 1`,
        fingerprintHash: values.fingerprintHash,
        networkHash: values.networkHash,
        verifiedAt: values.verifiedAt,
        lastSeenAt: values.lastSeenAt,
        updatedAt: values.updatedAt,
      },
    })
    .returning({
      id: members.id,
      createdAt: members.createdAt,
      altsFound: members.altsFound,
      isLinkedAsAlt: members.isLinkedAsAlt,
      manualAltStatus: members.manualAltStatus,
      guildAccess: members.guildAccess,
    });
}

/** Every column of the attempt a sign-in stores, but its id, its member and its account's age (the statement's). */
function attemptColumns(input: SignInInput): Omit<AttemptRow, 'id' | 'memberId' | 'accountCreatedAt'> {
  return {
    ipHash: input.evidence.ip?.ipHash ?? null,
    networkHash: input.evidence.ip?.networkHash ?? null,
    fingerprintHash: input.evidence.fingerprintHash,
    ...NO_COMPONENT_HASHES,
    ...(input.evidence.components ?? {}),
    browserTokenHash: input.evidence.browserTokenHash ?? null,
    stockProfile: input.evidence.stockProfile ?? null,
    vpnVerdict: input.vpn.verdict,
    vpnProvider: input.vpn.provider,
    vpnSource: input.vpn.source,
    timezoneMismatch: input.vpn.timezoneMismatch,
    vpnCheckFailed: input.vpn.checkFailed,
    outcome: input.outcome,
    // set, when it applies, once the links and the admission rule are written (recordAttemptEnding)
    endedAs: null,
    createdAt: input.now,
  };
}

/** The attempt's columns the sign-in writes, as a read in the same statement is built from them. */
export type SignInAttemptColumns = ReturnType<typeof attemptColumns>;

/**
 * Reads that run in the sign-in's statement (one round trip fewer each). They see the
 * snapshot the statement started from, without this sign-in: each is built from what the
 * statement writes, the member's id as SQL (`(select id from signed_in)`).
 */
export interface SignInReads {
  /** a select of one row (the admission read), built to count in the attempt written; comes back as a JSON object */
  admission?: (written: WindowAttempt) => SQL;
  /** a scalar expression (the alt candidate lookup of the attempt, its member left out), or null for none */
  candidates?: (attempt: SignInAttemptColumns, memberId: SQL) => SQL | null;
}

/**
 * Stores a completed sign-in in ONE statement: the member upserted (see upsertMember) and
 * its attempt inserted, with the `reads` asked of the same statement. Returns the member,
 * the attempt row as stored and what the reads gave (undefined for a read not asked).
 */
export async function recordSignIn(
  tx: Executor,
  input: SignInInput,
  reads: SignInReads = {},
): Promise<{ member: SignedInMember; attempt: AttemptRow; admission: unknown; candidates: unknown }> {
  const columns = attemptColumns(input);
  const { discordId } = input.identity;
  const signedInId = sql`(select id from signed_in)`;
  const admission = reads.admission?.({
    memberId: signedInId,
    discordId,
    fingerprintHash: columns.fingerprintHash,
    ipHash: columns.ipHash,
  });
  const candidates = reads.candidates?.(columns, signedInId) ?? null;
  // drizzle puts an embedded query in parentheses: `as ${query}` reads `as (insert …)`
  const attempt = tx
    .insert(verificationAttempts)
    .values({ ...columns, memberId: signedInId, accountCreatedAt: sql`discord_account_created_at(${discordId}::text)` })
    .returning({ id: verificationAttempts.id, accountCreatedAt: verificationAttempts.accountCreatedAt });
  const [row] = await selectRows<{
    member_id: number | string;
    member_created_ms: number | string;
    alts_found: number;
    is_linked_as_alt: boolean;
    manual_alt_status: ManualAltStatus | null;
    guild_access: SignedInMember['guildAccess'];
    attempt_id: number | string;
    account_created_ms: number | string | null;
    admission?: unknown;
    candidates?: unknown;
  }>(
    tx,
    sql`with signed_in as ${upsertMember(tx, input)}, attempt as ${attempt}
        select signed_in.id as member_id, (extract(epoch from signed_in.created_at) * 1000)::float8 as member_created_ms,
          signed_in.alts_found, signed_in.is_linked_as_alt, signed_in.manual_alt_status, signed_in.guild_access, attempt.id as attempt_id,
          (extract(epoch from attempt.account_created_at) * 1000)::float8 as account_created_ms${admission ? sql`, row_to_json(admission) as admission` : sql``}${candidates ? sql`, (${candidates}) as candidates` : sql``}
        from signed_in, attempt${admission ? sql`, (${admission}) as admission` : sql``}`,
  );
  if (!row) throw new Error('recording the sign-in returned no row');
  const memberId = Number(row.member_id);
  return {
    member: {
      id: memberId,
      discordId: input.identity.discordId,
      createdAt: new Date(Number(row.member_created_ms)),
      counters: { altsFound: Number(row.alts_found), isLinkedAsAlt: row.is_linked_as_alt === true },
      manualAltStatus: row.manual_alt_status,
      guildAccess: row.guild_access,
    },
    attempt: {
      id: Number(row.attempt_id),
      memberId,
      ...columns,
      accountCreatedAt: row.account_created_ms === null ? null : new Date(Number(row.account_created_ms)),
    },
    admission: row.admission,
    // a read asked but with nothing to look up by answers null, as its own statement would not have run
    candidates: reads.candidates ? (row.candidates ?? null) : undefined,
  };
}

/**
 * Whether a sign-in's transaction was kept: the attempt it wrote (this member's, stamped with the
 * sign-in's time) is stored. Asked when the connection was lost while that transaction committed.
 */
export async function signInAttemptKept(executor: Executor, discordId: string, at: Date): Promise<boolean> {
  const rows = await executor
    .select({ id: verificationAttempts.id })
    .from(verificationAttempts)
    .innerJoin(members, eq(members.id, verificationAttempts.memberId))
    .where(and(eq(members.discordId, discordId), eq(verificationAttempts.createdAt, at)))
    .limit(1);
  return rows.length > 0;
}

/**
 * Confirms the rules for a member and appends its audit row in ONE statement (it commits
 * on its own, so the audit chain's lock is held only while it runs). False when there is
 * no such member: then nothing is written.
 */
export async function confirmRulesAudited(executor: Executor, discordId: string, now: Date): Promise<boolean> {
  const audit = auditAppendCall(
    { actor: { type: 'visitor', id: discordId }, action: 'rules.confirmed', targetType: 'member', targetId: discordId },
    now,
    sql`confirmed.discord_id`,
  );
  const rows = await selectRows<{ id: number }>(
    executor,
    sql`with confirmed as (
          update ${members} set rules_confirmed = true, rules_confirmed_at = ${now.toISOString()}::timestamptz, last_seen_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
          where discord_id = ${discordId} returning discord_id)
        select audited.id from confirmed cross join lateral ${audit} as audited`,
  );
  return rows.length > 0;
}

/** Records the access the 'Complete Verification!' button gave a member. */
export async function setGuildAccess(
  executor: Executor,
  memberId: number,
  access: 'verified' | 'limited' | 'denied',
  now: Date,
): Promise<void> {
  await executor.update(members).set({ guildAccess: access, lastSeenAt: now, updatedAt: now }).where(eq(members.id, memberId));
}

/**
 * How a verification ended when not at its outcome's access (verificationAttempts.endedAs); written only then.
 * The query is returned unrun: await it, or run it inside another statement (a data-modifying WITH).
 */
export function recordAttemptEnding(tx: Executor, attemptId: number, endedAs: 'denied_alt' | 'pending') {
  return tx.update(verificationAttempts).set({ endedAs }).where(eq(verificationAttempts.id, attemptId));
}
