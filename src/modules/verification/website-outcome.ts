import type { LogCard } from '../outbox';
import type { VpnCheckResult } from '../vpn';
import type { DetectedAlt } from './detected-alt';

/**
 * How a website verification really ended, first match wins: the member is a certain alt
 * (the button denies them), an admission rule holds them for staff review, they are kept at
 * Limited Access (a VPN, or an admission rule), otherwise verified. The statistics' keys
 * (docs/behaviour.md#statistics) use the same words; the audit row's `outcome` is this.
 */
export type WebsiteEnding = 'denied_alt' | 'pending' | 'limited_access' | 'verified';

export interface WebsiteEndingInput {
  /** the VPN check's outcome (a refusal by the failure policy never gets this far) */
  vpnOutcome: 'verified' | 'limited_access';
  /** the member's standing after this verification is certain alt */
  certainAlt: boolean;
  /** what an admission rule (lockdown, account age) did, if one applied */
  gate: 'limited' | 'review' | null;
}

export function websiteEnding(input: WebsiteEndingInput): WebsiteEnding {
  if (input.certainAlt) return 'denied_alt';
  if (input.gate === 'review') return 'pending';
  if (input.vpnOutcome === 'limited_access' || input.gate === 'limited') return 'limited_access';
  return 'verified';
}

type LogLine = {
  kind: 'log_message';
  event: 'denied' | 'limited_access' | 'verified' | 'staff_action';
  discordId: string;
  text: string;
  card?: LogCard;
};

/**
 * The logs channel's line for a website verification, stating its real ending. A certain alt
 * reads as denied, naming the account it is an alt of (found by this verification) or why
 * otherwise; a verification an admission rule held or limited has the rule's own line (queued
 * by the admission step), so it gets none here unless the VPN check was unavailable.
 */
export function websiteOutcomeLine(
  input: WebsiteEndingInput & {
    discordId: string;
    vpn: Pick<VpnCheckResult, 'verdict' | 'provider' | 'checkFailed'>;
    alts: readonly DetectedAlt[];
    markedByStaff: boolean;
  },
): LogLine | null {
  const id = input.discordId;
  const flag = input.vpn.checkFailed ? ' (VPN check unavailable: flagged for review)' : '';
  const ending = websiteEnding(input);
  if (ending === 'denied_alt') {
    const main = input.alts.find((alt) => alt.confidence === 'certain' && alt.memberIsAlt);
    const why = input.markedByStaff
      ? 'marked certain alt by staff'
      : main
        ? `certain alt of <@${main.discordId}>`
        : 'certain alt of an account already verified here';
    const card: LogCard =
      main && !input.markedByStaff ? { for: 'alt', discordId: id, mainId: main.discordId } : { for: 'member', discordId: id };
    return { kind: 'log_message', event: 'denied', discordId: id, text: `⛔ <@${id}> was denied: ${why}${flag}.`, card };
  }
  if (input.vpnOutcome === 'limited_access') {
    const what = input.vpn.verdict === 'clean' ? 'VPN' : input.vpn.verdict.toUpperCase();
    return {
      kind: 'log_message',
      event: 'limited_access',
      discordId: id,
      text: `🛡️ <@${id}> verified on the website behind a ${what}${input.vpn.provider ? ` (${input.vpn.provider})` : ''}: Limited Access only.`,
      card: { for: 'member', discordId: id },
    };
  }
  if (input.gate)
    return input.vpn.checkFailed
      ? {
          kind: 'log_message',
          event: 'staff_action',
          discordId: id,
          text: `⚠️ <@${id}>: the VPN check was unavailable; flagged for review.`,
        }
      : null;
  return {
    kind: 'log_message',
    event: 'verified',
    discordId: id,
    text: `✅ <@${id}> completed website verification${flag}.`,
    card: { for: 'member', discordId: id },
  };
}

/**
 * The roles a website verification joins the member with: Verified when it ended verified and
 * staff (an approved appeal, a manual verification) or the button had already given them Verified,
 * so someone who left or was removed gets back what they had; otherwise Unverified, and the
 * button decides.
 */
export function joinRoles(
  ending: WebsiteEnding,
  guildAccessBefore: 'pending' | 'verified' | 'limited' | 'denied',
): ['verified'] | ['unverified'] {
  return ending === 'verified' && guildAccessBefore === 'verified' ? ['verified'] : ['unverified'];
}
