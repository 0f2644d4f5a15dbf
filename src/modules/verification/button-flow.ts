import type { Logger } from '../../logger';
import { logDenied, logLimited, logVerified } from '../../operator-events';
import type { Clock } from '../../clock';
import type { Database, Executor } from '../../db/client';
import { gateMessage, decideAtButton, type ButtonDecision } from '../admission';
import { appendAudit } from '../audit';
import { listAltsForMember } from '../alts';
import { strongestCountingLink } from '../members';
import { auditLogReason, type DiscordAction, type OutboxPort, queueRoleConnectionUpdate, grantVerified } from '../outbox';
import { findMemberRowByDiscordId, setGuildAccess, type MemberRow } from './verification.repository';
import { asLastStatement } from '../../db/last-statement';
import { retryOnLostConnection, retryWhileUncommitted } from '../../db/transaction-retry';

/*
 * 'Complete Verification!': read `completeAtButton` top to bottom, one line per step. What the click
 * does is decided in one place, `decideAtButton` (admission/button-outcome.ts: the member's standing,
 * then the admission rule stored on them); the steps here read the member, record that decision with
 * its Discord actions in one transaction, and hand the actions to the outbox.
 */

export type CertainAltAction = 'none' | 'kick' | 'ban';

/** A decision the button records: the ones that give or refuse access. */
type Recorded = Extract<ButtonDecision, 'verified' | 'limited' | 'denied_alt'>;

export interface ButtonResult {
  /** 'held': an admission rule (lockdown, account age) holds the member for staff review */
  outcome: ButtonDecision;
  /** the provider named on the member's record (limited access), else null */
  vpnProvider: string | null;
  /** why an admission rule holds the member or keeps them at Limited Access, in the visitor's words; else null */
  gateMessage: string | null;
}

export interface ButtonFlowDeps {
  database: Database;
  clock: Clock;
  outbox: OutboxPort;
  /** what the button does to an account that is a certain alt (read once per click: the owner can change it without a restart) */
  readonly certainAltAction: CertainAltAction;
  nudgeOutbox?: () => void;
  logger?: Logger;
  /** Linked Roles: while on, the button queues the member's role connection update */
  linkedRoles?: { readonly enabled: boolean };
}

/**
 * The click: the decision, its roles (through the outbox), the log line and the audit row commit
 * together. Nothing is written when the member has no record, has not accepted the rules yet or is
 * held for staff review.
 */
export function createButtonFlow(deps: ButtonFlowDeps) {
  return async function completeAtButton(user: { discordId: string; username: string }): Promise<ButtonResult> {
    const member = await readMember(deps, user.discordId);
    const decision = decideAtButton(member);
    if (!member || !records(decision)) return answer(decision, member);
    const certainAltAction = deps.certainAltAction;
    await recordDecision(deps, { user, member, decision, certainAltAction, now: deps.clock.now() });
    deps.nudgeOutbox?.();
    logDecision(deps.logger, user.discordId, member, decision, certainAltAction);
    return answer(decision, member);
  };
}

/**
 * Step 1: the member's record. A lost database connection (a PostgreSQL restart) is tried again rather
 * than failing the click: the read is harmless to repeat.
 */
function readMember(deps: ButtonFlowDeps, discordId: string): Promise<MemberRow | undefined> {
  return retryOnLostConnection(() => findMemberRowByDiscordId(deps.database.db, discordId));
}

function records(decision: ButtonDecision): decision is Recorded {
  return decision === 'verified' || decision === 'limited' || decision === 'denied_alt';
}

/**
 * Step 2, one transaction: the access given, the Discord actions queued, the audit row last (with COMMIT
 * where the engine allows). It runs again only if its commit had not started when the connection was lost.
 */
async function recordDecision(
  deps: ButtonFlowDeps,
  input: {
    user: { discordId: string; username: string };
    member: MemberRow;
    decision: Recorded;
    certainAltAction: CertainAltAction;
    now: Date;
  },
): Promise<void> {
  const { user, member, decision: outcome, certainAltAction, now } = input;
  await retryWhileUncommitted<void>((committing) =>
    deps.database.db.transaction(async (tx) => {
      await setGuildAccess(tx, member.id, outcome === 'denied_alt' ? 'denied' : outcome, now);
      const main = outcome === 'denied_alt' && certainAltAction !== 'none' ? await readMainOfAlt(tx, member) : null;
      // the member waits in front of the button for the role change (or the kick or ban): interactive, ahead of
      // bulk work such as a raid's joins; the log line is bulk. One INSERT for all (enqueue keeps the order)
      const [first, ...rest] = buttonActions(user.discordId, member, outcome, certainAltAction, main);
      await deps.outbox.enqueue(tx, first, ...rest);
      // Linked Roles on: the member's connection follows (verified, or not)
      if (deps.linkedRoles?.enabled) await queueRoleConnectionUpdate(tx, deps.outbox, user.discordId);
      const audit = {
        actor: { type: 'discord' as const, id: user.discordId, name: user.username },
        action: `button.${outcome}`,
        targetType: 'member',
        targetId: user.discordId,
        details: { certainAltAction: outcome === 'denied_alt' ? certainAltAction : undefined },
      };
      await asLastStatement(tx, () => appendAudit(tx, audit, now), committing);
    }),
  );
}

/** The main account a certain alt belongs to, for Discord's audit log when it is kicked or banned: one read, on this rare path only. */
async function readMainOfAlt(tx: Executor, member: MemberRow): Promise<{ username: string } | null> {
  if (member.manualAltStatus === 'certain_alt') return null;
  const link = strongestCountingLink(await listAltsForMember(tx, member.id), true);
  return link?.otherIs === 'main' ? link : null;
}

/** Pure: the Discord actions of a recorded decision, the member's role change (or kick, or ban) before the log line. */
function buttonActions(
  discordId: string,
  member: MemberRow,
  decision: Recorded,
  certainAltAction: CertainAltAction,
  main: { username: string } | null,
): [DiscordAction, ...DiscordAction[]] {
  if (decision === 'verified') {
    return [
      { ...grantVerified(discordId, auditLogReason('verified on the website')), priority: 'interactive' },
      {
        kind: 'log_message',
        event: 'verified',
        discordId,
        text: `✅ <@${discordId}> completed verification and got the Verified role.`,
        card: { for: 'member', discordId, verified: true },
      },
    ];
  }
  if (decision === 'limited') {
    const why =
      member.gateAction === 'limited'
        ? `(${member.gateReason ?? 'a server rule applies'})`
        : `is on a VPN${member.vpnProvider ? ` (${member.vpnProvider})` : ''}`;
    return [
      {
        kind: 'update_roles',
        discordId,
        add: ['limited'],
        remove: ['unverified'],
        reason: auditLogReason(limitedAccessReason(member)),
        priority: 'interactive',
      },
      {
        kind: 'log_message',
        event: 'vpn_blocked',
        discordId,
        text: `🛡️ <@${discordId}> ${why}: granted Limited Access only.`,
        card: { for: 'member', discordId },
      },
    ];
  }
  const denied: DiscordAction = {
    kind: 'log_message',
    event: 'denied',
    discordId,
    text: `⛔ <@${discordId}> was denied at the button: certain alt${certainAltAction !== 'none' ? ` (${certainAltAction})` : ''}.`,
    card: { for: 'member', discordId },
  };
  if (certainAltAction === 'none') return [denied];
  const whose = main
    ? `certain alt of @${main.username}`
    : member.manualAltStatus === 'certain_alt'
      ? 'marked a certain alt by staff'
      : 'certain alt';
  return [
    {
      kind: certainAltAction,
      discordId,
      reason: auditLogReason(`${whose}, denied at the button (${certainAltAction})`),
      priority: 'interactive',
    },
    denied,
  ];
}

/** Why the button gives Limited Access, for Discord's audit log: the admission rule, else the VPN. */
function limitedAccessReason(member: { gateAction: string | null; gateReason: string | null; vpnProvider: string | null }): string {
  if (member.gateAction === 'limited') return `Limited Access (${member.gateReason ?? 'a server rule applies'})`;
  return `Limited Access, on a VPN${member.vpnProvider ? ` (${member.vpnProvider})` : ''}`;
}

/** Step 3: the operator's log line for a recorded decision. */
function logDecision(
  logger: Logger | undefined,
  discordId: string,
  member: MemberRow,
  decision: Recorded,
  certainAltAction: CertainAltAction,
): void {
  if (!logger) return;
  if (decision === 'verified') logVerified(logger, { discordId, via: 'button' });
  else if (decision === 'limited')
    logLimited(logger, {
      discordId,
      why:
        member.gateAction === 'limited'
          ? (member.gateReason ?? 'a server rule')
          : `VPN${member.vpnProvider ? ` (${member.vpnProvider})` : ''}`,
    });
  else logDenied(logger, { discordId, why: `certain alt, at the button${certainAltAction !== 'none' ? ` (${certainAltAction})` : ''}` });
}

/** What the member is told (src/discord/bot/verify-button.ts words it): the decision, the VPN provider and the admission rule's message where one applies. */
function answer(decision: ButtonDecision, member: MemberRow | undefined): ButtonResult {
  if (!member || decision === 'no_record' || decision === 'rules_pending')
    return { outcome: decision, vpnProvider: null, gateMessage: null };
  if (decision === 'held') return { outcome: decision, vpnProvider: null, gateMessage: gateMessage(member) };
  return { outcome: decision, vpnProvider: member.vpnProvider, gateMessage: decision === 'limited' ? gateMessage(member) : null };
}
