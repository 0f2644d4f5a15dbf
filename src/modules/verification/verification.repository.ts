import { eq, getTableColumns, sql } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { auditAppendCall } from '../audit/audit.repository';
import { members, verificationAttempts } from '../../db/schema';
import type { FingerprintComponentHashes } from '../fingerprint/fingerprint-components';
import type { IpHashes } from '../network';
import type { VpnCheckResult, VpnOutcome } from '../vpn/vpn.types';

export type MemberRow = typeof members.$inferSelect;
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
}

/**
 * Creates or refreshes the member of a completed sign-in. A Limited Access outcome keeps
 * only the Discord ID and username (plus the VPN flag, provider and timestamps): any
 * avatar, fingerprint or network stored earlier is cleared.
 */
export async function upsertVerifiedMember(
  tx: Executor,
  input: { identity: VerifiedIdentity; outcome: Exclude<VpnOutcome, 'denied'>; vpn: VpnCheckResult; usedVpn: boolean; evidence: AttemptEvidence; now: Date },
): Promise<{ member: MemberRow; created: boolean }> {
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
  const [row] = await tx
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
    .returning({ ...getTableColumns(members), created: sql<boolean>`(xmax = 0)` });
  const { created, ...member } = row!;
  return { member, created: Boolean(created) };
}

export async function insertAttempt(
  tx: Executor,
  input: { memberId: number; outcome: VpnOutcome; vpn: VpnCheckResult; evidence: AttemptEvidence; now: Date },
): Promise<AttemptRow> {
  const [row] = await tx
    .insert(verificationAttempts)
    .values({
      memberId: input.memberId,
      ipHash: input.evidence.ip?.ipHash ?? null,
      networkHash: input.evidence.ip?.networkHash ?? null,
      fingerprintHash: input.evidence.fingerprintHash,
      ...(input.evidence.components ?? {}),
      vpnVerdict: input.vpn.verdict,
      vpnProvider: input.vpn.provider,
      vpnSource: input.vpn.source,
      timezoneMismatch: input.vpn.timezoneMismatch,
      vpnCheckFailed: input.vpn.checkFailed,
      outcome: input.outcome,
      createdAt: input.now,
    })
    .returning();
  return row!;
}

export async function findMemberByDiscordId(executor: Executor, discordId: string): Promise<MemberRow | undefined> {
  const [row] = await executor.select().from(members).where(eq(members.discordId, discordId));
  return row;
}

/**
 * Confirms the rules for a member and appends its audit row in ONE statement (it commits
 * on its own, so the audit chain's lock is held only while it runs). False when there is
 * no such member: then nothing is written.
 */
export async function confirmRulesAudited(executor: Executor, discordId: string, now: Date): Promise<boolean> {
  const audit = auditAppendCall({ actor: { type: 'visitor', id: discordId }, action: 'rules.confirmed', targetType: 'member', targetId: discordId }, now, sql`confirmed.discord_id`);
  const rows = await selectRows<{ id: number }>(
    executor,
    sql`with confirmed as (
          update ${members} set rules_confirmed = true, rules_confirmed_at = ${now.toISOString()}::timestamptz, last_seen_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
          where discord_id = ${discordId} returning discord_id)
        select audited.id from confirmed cross join lateral ${audit} as audited`,
  );
  return rows.length > 0;
}
