import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { appendAudit } from '../audit/audit.repository';
import type { OutboxPort } from '../outbox/outbox.types';
import { decideButtonOutcome, type ButtonOutcome } from './button-outcome';
import { findMemberByDiscordId, setGuildAccess } from './verification.repository';

export type CertainAltAction = 'none' | 'kick' | 'ban';

export interface ButtonResult {
  outcome: ButtonOutcome;
  /** the provider named on the member's record (limited access), else null */
  vpnProvider: string | null;
}

/**
 * 'Complete Verification!': the decision, its roles (through the outbox), the log line
 * and the audit row commit together. Nothing is written when the member has no record
 * or has not accepted the rules yet.
 */
export function createCompleteButton(deps: { database: Database; clock: Clock; outbox: OutboxPort; certainAltAction: CertainAltAction; nudgeOutbox?: () => void }) {
  return async function completeAtButton(user: { discordId: string; username: string }): Promise<ButtonResult> {
    const { discordId } = user;
    const member = await findMemberByDiscordId(deps.database.db, discordId);
    const outcome = decideButtonOutcome(member);
    if (outcome === 'no_record' || outcome === 'rules_pending' || !member) return { outcome, vpnProvider: null };
    const actor = { type: 'discord' as const, id: discordId, name: user.username };
    const now = deps.clock.now();

    await deps.database.db.transaction(async (tx) => {
      const access = outcome === 'denied_alt' ? 'denied' : outcome === 'limited' ? 'limited' : 'verified';
      await setGuildAccess(tx, member.id, access, now);
      if (outcome === 'verified') {
        await deps.outbox.enqueue(tx, { kind: 'update_roles', discordId, add: ['verified'], remove: ['unverified', 'limited'] });
        await deps.outbox.enqueue(tx, { kind: 'log_message', event: 'verified', discordId, text: `✅ <@${discordId}> completed verification and got the Verified role.` });
      } else if (outcome === 'limited') {
        await deps.outbox.enqueue(tx, { kind: 'update_roles', discordId, add: ['limited'], remove: ['unverified'] });
        await deps.outbox.enqueue(tx, { kind: 'log_message', event: 'vpn_blocked', discordId, text: `🛡️ <@${discordId}> is on a VPN${member.vpnProvider ? ` (${member.vpnProvider})` : ''}: granted Limited Access only.` });
      } else {
        if (deps.certainAltAction !== 'none') {
          await deps.outbox.enqueue(tx, { kind: deps.certainAltAction, discordId, reason: 'Gatekeeper: certain alternate account' });
        }
        await deps.outbox.enqueue(tx, {
          kind: 'log_message',
          event: 'denied',
          discordId,
          text: `⛔ <@${discordId}> was denied at the button: certain alt${deps.certainAltAction !== 'none' ? ` (${deps.certainAltAction})` : ''}.`,
        });
      }
      await appendAudit(tx, { actor, action: `button.${outcome}`, targetType: 'member', targetId: discordId, details: { certainAltAction: outcome === 'denied_alt' ? deps.certainAltAction : undefined } }, now);
    });
    deps.nudgeOutbox?.();
    return { outcome, vpnProvider: member.vpnProvider };
  };
}
