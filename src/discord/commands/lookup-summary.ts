import { type AltEntry, type UserDetail, ALT_STATUS_WORDS } from '../../modules/members';
import { countsAsAlt, describeAltEvidence, WEAK_EVIDENCE_HEADING } from '../../shared/alt-evidence-words';
import { memberBadges, memberStanding } from '../../shared/member-badges';
import type { HandlerReply } from '../bot/interaction-dispatcher';

/** The tiers that count as alts; possible links are listed apart, as evidence (WEAK_EVIDENCE_HEADING). */
const CONFIDENCE_GROUPS: { confidence: AltEntry['confidence']; title: string }[] = [
  { confidence: 'certain', title: 'Certain' },
  { confidence: 'medium', title: 'Medium' },
];

/**
 * Characters each list may take (certain, medium, the weak evidence), so a member with many
 * links still fits in one Discord message with each link's reasons: links are named while
 * they fit, the first always.
 */
const GROUP_CHARACTERS = 350;
/** Reasons named per link in a reply; the rest are counted ("3 more shared signs"). */
const REASONS_NAMED = 2;
/** Dismissed links are named without their reasons. */
const DISMISSED_SHOWN = 4;

/** As many mentions as fit in GROUP_CHARACTERS, at least one; how many were left out. */
function mentionsThatFit(links: AltEntry[]): { text: string; left: number } {
  const shown: string[] = [];
  let used = 0;
  for (const link of links) {
    const mention = altMention(link);
    if (shown.length > 0 && used + mention.length + 3 > GROUP_CHARACTERS) break;
    shown.push(mention);
    used += mention.length + 3;
  }
  return { text: shown.join(' · '), left: links.length - shown.length };
}

const GUILD_ACCESS_WORDS: Record<UserDetail['verificationStatus'], string> = {
  pending: 'not granted yet',
  verified: 'Verified role granted',
  limited: 'Limited Access role granted',
  denied: 'denied at the button',
};

/** A Discord timestamp: every reader sees it in their own time zone. */
export function discordTime(iso: string | Date, style: 'f' | 'd' | 'R' = 'f'): string {
  return `<t:${Math.floor(new Date(iso).getTime() / 1000)}:${style}>`;
}

/** The other member and, in the dashboard's words, how strong the link is and why. */
function altMention(a: AltEntry): string {
  return `<@${a.discordId}> ${a.username}: ${describeAltEvidence(a, { maxReasons: REASONS_NAMED })}`;
}

/**
 * The open links that count (certain, medium) by confidence; the weak ones (possible) under
 * the neutral heading, without a count; links staff dismissed ("Not the same person") count
 * nowhere and are listed apart.
 */
function altLines(all: AltEntry[]): string[] {
  const alts = all.filter((a) => !a.dismissed && countsAsAlt(a.confidence));
  const weak = all.filter((a) => !a.dismissed && !countsAsAlt(a.confidence));
  const dismissed = all.filter((a) => a.dismissed);
  const lines = alts.length === 0 ? ['**Alts:** none found'] : [`**Alts (${alts.length}):**`];
  for (const group of CONFIDENCE_GROUPS) {
    const inGroup = alts.filter((a) => a.confidence === group.confidence);
    if (inGroup.length === 0) continue;
    const { text, left } = mentionsThatFit(inGroup);
    lines.push(`• ${group.title} (${inGroup.length}): ${text}${left > 0 ? `, and ${left} more` : ''}`);
  }
  if (weak.length > 0) {
    const { text, left } = mentionsThatFit(weak);
    lines.push(`**${WEAK_EVIDENCE_HEADING}:** ${text}${left > 0 ? ', and others' : ''}`);
  }
  if (dismissed.length > 0) {
    const shown = dismissed.slice(0, DISMISSED_SHOWN).map((a) => `<@${a.discordId}> ${a.username}`);
    const more = dismissed.length > DISMISSED_SHOWN ? `, and ${dismissed.length - DISMISSED_SHOWN} more` : '';
    lines.push(`• Dismissed by staff, not the same person (${dismissed.length}): ${shown.join(', ')}${more}`);
  }
  return lines;
}

/** A staff 'suspected' status on a linked member downgrades the link (memberStanding): say so, since the alts below still list it. */
function overrideNote(user: UserDetail): string {
  return user.isLinkedAsAlt && memberStanding(user) === 'suspected_alt' ? ' (overrides the detected link: not a certain alt)' : '';
}

/**
 * `/lookup`: the dashboard card in a few lines — badges by the dashboard's own
 * precedence function, Discord access, alts by confidence with their method, VPN use —
 * and a button to the detail page.
 */
export function lookupSummary(user: UserDetail, websiteUrl: string): HandlerReply {
  const badges = memberBadges(user).map((b) => b.label);
  const vpnProvider = user.vpnProvider ? ` (provider: ${user.vpnProvider})` : '';
  const lines = [
    `**${user.username}** <@${user.discordId}> · ID ${user.discordId}`,
    `**Status:** ${badges.join(' · ')}`,
    `**Discord access:** ${GUILD_ACCESS_WORDS[user.verificationStatus]} · rules accepted: ${user.rulesConfirmed ? 'yes' : 'no'} · record from ${user.source === 'manual' ? 'manual entry' : 'the website'}`,
    `**Alt-status override:** ${ALT_STATUS_WORDS[user.manualAltStatus ?? 'none']}${overrideNote(user)}`,
    ...altLines(user.alts),
    `**VPN attempts:** ${user.vpnAttempts}${user.usedVpn ? vpnProvider : ''}`,
    `**Verifications:** ${user.verificationCount} · last ${discordTime(user.timestamp)}`,
  ];
  if (user.admission)
    lines.push(
      `**Admission:** ${user.admission.action === 'review' ? 'held for staff review' : 'Limited Access'} (${user.admission.reason ?? 'a server rule'})`,
    );
  if (user.sharedNetwork.marked)
    lines.push(
      `**Network:** marked as shared${user.sharedNetwork.label ? ` ("${user.sharedNetwork.label}")` : ''}: IP and network matches there do not count`,
    );
  return { content: lines.join('\n'), links: [{ label: 'Open in dashboard', url: `${websiteUrl}/admin/user/${user.discordId}` }] };
}
