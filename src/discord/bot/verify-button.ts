import type { ButtonInteraction } from 'discord.js';
import { eq } from 'drizzle-orm';
import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { members } from '../../db/schema';
import { appendAudit } from '../../modules/audit/audit.repository';
import type { OutboxPort } from '../../modules/outbox/outbox.types';
import { decideButtonOutcome } from '../../modules/verification/button-outcome';
import { gateButtonOutcome, gateMessage } from '../../modules/admission/admission-rules';
import { findMemberByDiscordId } from '../../modules/verification/verification.repository';
import type { HandlerReply } from './interaction-dispatcher';

export const VERIFY_BUTTON_ID = 'gatekeeper:verify';

/**
 * 'Complete Verification!' (DESIGN.md §4 step 7). The decision, its roles (through the
 * outbox), the log line and the audit row commit together; the reply tells the member
 * what happens next in plain words.
 */
export function createVerifyButtonHandler(deps: {
  database: Database;
  outbox: OutboxPort;
  clock: Clock;
  websiteUrl: string;
  certainAltAction: 'none' | 'kick' | 'ban';
  nudgeOutbox?: () => void;
}) {
  return async (interaction: ButtonInteraction): Promise<HandlerReply> => {
    const discordId = interaction.user.id;
    const member = await findMemberByDiscordId(deps.database.db, discordId);
    // an admission rule (lockdown, account age) can hold the member or keep them at Limited Access
    const gated = member ? gateButtonOutcome(decideButtonOutcome(member), member) : 'no_record';
    if (gated === 'held' && member) return { content: gateMessage(member) ?? '' };
    const outcome = gated === 'held' ? 'limited' : gated;
    const actor = { type: 'discord' as const, id: discordId, name: interaction.user.username };
    const now = deps.clock.now();

    if (outcome === 'no_record' || !member) {
      return {
        content: "You haven't verified on the website yet. Open the verification page, sign in with Discord, then come back and click 'Complete Verification!'.",
        links: [{ label: 'Verify on the website', url: deps.websiteUrl }],
      };
    }
    if (outcome === 'rules_pending') {
      return {
        content: "Almost there: please read and accept the server rules on the website, then click 'Complete Verification!' again.",
        links: [{ label: 'Read the rules', url: `${deps.websiteUrl}/rules` }],
      };
    }

    await deps.database.db.transaction(async (tx) => {
      const access = outcome === 'denied_alt' ? 'denied' : outcome === 'limited' ? 'limited' : 'verified';
      await tx.update(members).set({ guildAccess: access, lastSeenAt: now, updatedAt: now }).where(eq(members.id, member.id));
      if (outcome === 'verified') {
        await deps.outbox.enqueue(tx, { kind: 'update_roles', discordId, add: ['verified'], remove: ['unverified', 'limited'] });
        await deps.outbox.enqueue(tx, { kind: 'log_message', event: 'verified', discordId, text: `✅ <@${discordId}> completed verification and got the Verified role.` });
      } else if (outcome === 'limited') {
        await deps.outbox.enqueue(tx, { kind: 'update_roles', discordId, add: ['limited'], remove: ['unverified'] });
        const why = member.gateAction === 'limited' ? `${member.gateReason ?? 'a server rule applies'}` : `is on a VPN${member.vpnProvider ? ` (${member.vpnProvider})` : ''}`;
        await deps.outbox.enqueue(tx, { kind: 'log_message', event: 'vpn_blocked', discordId, text: `🛡️ <@${discordId}> ${member.gateAction === 'limited' ? `(${why})` : why}: granted Limited Access only.` });
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

    if (outcome === 'denied_alt') {
      return { content: 'Verification denied: this account is linked to another account that is already verified on this server. If you think this is a mistake, please contact server staff.' };
    }
    if (outcome === 'limited' && member.gateAction === 'limited') return { content: gateMessage(member) ?? '' };
    if (outcome === 'limited') {
      return {
        content:
          "You're connected through a VPN, so you have Limited Access: only #raffle-confirmation-chat and #stream-general-chat. For full access, disconnect the VPN and verify again on the website.",
        links: [{ label: 'Verify again', url: deps.websiteUrl }],
      };
    }
    return { content: "✅ You're verified! Your roles are being updated: all channels will appear in a moment." };
  };
}
