import type { ButtonInteraction } from 'discord.js';
import type { VerificationService } from '../../modules/verification';
import type { HandlerReply } from './interaction-dispatcher';

export const VERIFY_BUTTON_ID = 'gatekeeper:verify';
/** A click whose answer is not ready this long after it was made is deferred (well inside Discord's 3 s). */
export const VERIFY_DEFER_AFTER_MS = 500;

/** 'Complete Verification!': the verification service decides and records; the reply tells the member what happens next in plain words. */
export function createVerifyButtonHandler(deps: { verification: Pick<VerificationService, 'completeAtButton'>; websiteUrl: string }) {
  return async (interaction: ButtonInteraction): Promise<HandlerReply> => {
    const { outcome, gateMessage } = await deps.verification.completeAtButton({
      discordId: interaction.user.id,
      username: interaction.user.username,
    });
    // held by an admission rule (lockdown, account age), or kept at Limited Access by one: its reason
    if (gateMessage) return { content: gateMessage };

    if (outcome === 'no_record') {
      return {
        content:
          "You haven't verified on the website yet. Open the verification page, sign in with Discord, then come back and click 'Complete Verification!'.",
        links: [{ label: 'Verify on the website', url: deps.websiteUrl }],
      };
    }
    if (outcome === 'rules_pending') {
      return {
        content: "Almost there: please read and accept the server rules on the website, then click 'Complete Verification!' again.",
        links: [{ label: 'Read the rules', url: `${deps.websiteUrl}/rules` }],
      };
    }

    if (outcome === 'denied_alt') {
      return {
        content:
          'Verification denied: this account is linked to another account that is already verified on this server. If you think this is a mistake, ask staff to review it.',
        links: [{ label: 'Ask staff to review', url: `${deps.websiteUrl}/appeal` }],
      };
    }
    if (outcome === 'limited') {
      return {
        content:
          "You're connected through a VPN, so you have Limited Access: only #raffle-confirmation-chat and #stream-general-chat. For full access, disconnect the VPN and verify again on the website.",
        links: [
          { label: 'Verify again', url: deps.websiteUrl },
          { label: 'Ask staff to review', url: `${deps.websiteUrl}/appeal` },
        ],
      };
    }
    return { content: "✅ You're verified! Your roles are being updated: all channels will appear in a moment." };
  };
}
