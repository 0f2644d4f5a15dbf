import { queueRoleConnectionUpdate } from '../outbox/role-connection-grants.repository';
import type { Logger } from '../../logger';
import { logDenied, logLimited, logVerified } from '../../operator-events';
import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { gateButtonOutcome, gateMessage } from '../admission/admission-rules';
import { appendAudit } from '../audit/audit.repository';
import { listAltsForMember } from '../alts/alt-links.repository';
import { strongestCountingLink } from '../members/standing-reason';
import { auditLogReason } from '../outbox/audit-log-reason';
import { grantVerified } from '../outbox/grant-verified';
import type { DiscordAction, OutboxPort } from '../outbox/outbox.types';
import { decideButtonOutcome, type ButtonOutcome } from '../admission/button-outcome';
import { findMemberRowByDiscordId, setGuildAccess } from './verification.repository';
import { asLastStatement } from '../../db/last-statement';
import { retryOnLostConnection, retryWhileUncommitted } from '../../db/transaction-retry';

export type CertainAltAction = 'none' | 'kick' | 'ban';

/** Why the button gives Limited Access, for Discord's audit log: the admission rule, else the VPN. */
function limitedAccessReason(member: { gateAction: string | null; gateReason: string | null; vpnProvider: string | null }): string {
  if (member.gateAction === 'limited') return `Limited Access (${member.gateReason ?? 'a server rule applies'})`;
  return `Limited Access, on a VPN${member.vpnProvider ? ` (${member.vpnProvider})` : ''}`;
}

export interface ButtonResult {
  /** 'held': an admission rule (lockdown, account age) holds the member for staff review */
  outcome: ButtonOutcome | 'held';
  /** the provider named on the member's record (limited access), else null */
  vpnProvider: string | null;
  /** why an admission rule holds the member or keeps them at Limited Access, in the visitor's words; else null */
  gateMessage: string | null;
}

/**
 * 'Complete Verification!': the decision, its roles (through the outbox), the log line
 * and the audit row commit together. Nothing is written when the member has no record
 * or has not accepted the rules yet.
 */
export function createCompleteButton(deps: { database: Database; clock: Clock; outbox: OutboxPort; readonly certainAltAction: CertainAltAction; nudgeOutbox?: () => void; logger?: Logger; /** Linked Roles: while on, the button queues the member's role connection update */ linkedRoles?: { readonly enabled: boolean } }) {
  return async function completeAtButton(user: { discordId: string; username: string }): Promise<ButtonResult> {
    const { discordId } = user;
    // a lost database connection (a PostgreSQL restart) is tried again rather than failing the click: the read is
    // harmless to repeat, and the transaction runs again only if its commit had not started
    const member = await retryOnLostConnection(() => findMemberRowByDiscordId(deps.database.db, discordId));
    const decided = decideButtonOutcome(member);
    if (decided === 'no_record' || decided === 'rules_pending' || !member) return { outcome: decided, vpnProvider: null, gateMessage: null };
    // an admission rule (lockdown, account age) can hold the member or keep them at Limited Access
    const outcome = gateButtonOutcome(decided, member);
    if (outcome === 'held') return { outcome, vpnProvider: null, gateMessage: gateMessage(member) };
    const certainAltAction = deps.certainAltAction; // read once per click: the owner can change it without a restart
    const actor = { type: 'discord' as const, id: discordId, name: user.username };
    const now = deps.clock.now();

    await retryWhileUncommitted<void>((committing) => deps.database.db.transaction(async (tx) => {
      const access = outcome === 'denied_alt' ? 'denied' : outcome === 'limited' ? 'limited' : 'verified';
      await setGuildAccess(tx, member.id, access, now);
      // the member waits in front of the button for the role change (or the kick or ban): interactive, ahead of
      // bulk work such as a raid's joins; the log line is bulk. One INSERT for both (enqueue keeps the order)
      if (outcome === 'verified') {
        await deps.outbox.enqueue(
          tx,
          { ...grantVerified(discordId, auditLogReason('verified on the website')), priority: 'interactive' },
          { kind: 'log_message', event: 'verified', discordId, text: `✅ <@${discordId}> completed verification and got the Verified role.`, card: { for: 'member', discordId, verified: true } },
        );
      } else if (outcome === 'limited') {
        const why = member.gateAction === 'limited' ? `(${member.gateReason ?? 'a server rule applies'})` : `is on a VPN${member.vpnProvider ? ` (${member.vpnProvider})` : ''}`;
        await deps.outbox.enqueue(
          tx,
          { kind: 'update_roles', discordId, add: ['limited'], remove: ['unverified'], reason: auditLogReason(limitedAccessReason(member)), priority: 'interactive' },
          { kind: 'log_message', event: 'vpn_blocked', discordId, text: `🛡️ <@${discordId}> ${why}: granted Limited Access only.`, card: { for: 'member', discordId } },
        );
      } else {
        const denied: DiscordAction = {
          kind: 'log_message',
          event: 'denied',
          discordId,
          text: `⛔ <@${discordId}> was denied at the button: certain alt${certainAltAction !== 'none' ? ` (${certainAltAction})` : ''}.`,
          card: { for: 'member', discordId },
        };
        if (certainAltAction !== 'none') {
          // the main's name for Discord's audit log: one read, on this rare path only
          const main = member.manualAltStatus === 'certain_alt' ? null : strongestCountingLink(await listAltsForMember(tx, member.id), true);
          const whose = main?.otherIs === 'main' ? `certain alt of @${main.username}` : member.manualAltStatus === 'certain_alt' ? 'marked a certain alt by staff' : 'certain alt';
          await deps.outbox.enqueue(tx, { kind: certainAltAction, discordId, reason: auditLogReason(`${whose}, denied at the button (${certainAltAction})`), priority: 'interactive' }, denied);
        } else await deps.outbox.enqueue(tx, denied);
      }
      // Linked Roles on: the member's connection follows (verified, or not)
      if (deps.linkedRoles?.enabled) await queueRoleConnectionUpdate(tx, deps.outbox, discordId);
      const audit = { actor, action: `button.${outcome}`, targetType: 'member', targetId: discordId, details: { certainAltAction: outcome === 'denied_alt' ? certainAltAction : undefined } };
      await asLastStatement(tx, () => appendAudit(tx, audit, now), committing);
    }));
    deps.nudgeOutbox?.();
    if (deps.logger) {
      if (outcome === 'verified') logVerified(deps.logger, { discordId, via: 'button' });
      else if (outcome === 'limited') logLimited(deps.logger, { discordId, why: member.gateAction === 'limited' ? (member.gateReason ?? 'a server rule') : `VPN${member.vpnProvider ? ` (${member.vpnProvider})` : ''}` });
      else logDenied(deps.logger, { discordId, why: `certain alt, at the button${certainAltAction !== 'none' ? ` (${certainAltAction})` : ''}` });
    }
    return { outcome, vpnProvider: member.vpnProvider, gateMessage: outcome === 'limited' ? gateMessage(member) : null };
  };
}
