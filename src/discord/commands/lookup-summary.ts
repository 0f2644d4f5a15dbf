import type { AltEntry, UserDetail } from '../../modules/members/member-views';
import { ALT_STATUS_WORDS } from '../../modules/members/members.service';
import { memberBadges, memberStanding } from '../../shared/member-badges';
import type { HandlerReply } from '../bot/interaction-dispatcher';

/** How each detection method reads in a reply. */
export const DETECTION_METHOD_WORDS: Record<string, string> = {
  ip: 'same IP',
  fingerprint: 'same device fingerprint',
  both: 'same IP and device',
  network: 'same network and a partial device match',
  manual: 'linked by staff',
};

const CONFIDENCE_GROUPS: { confidence: AltEntry['confidence']; title: string }[] = [
  { confidence: 'certain', title: 'Certain' },
  { confidence: 'medium', title: 'Medium' },
  { confidence: 'possible', title: 'Possible' },
];

/** Per group, so a member with many alts still fits in one Discord message. */
const ALTS_SHOWN_PER_GROUP = 4;

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

function altMention(a: AltEntry): string {
  return `<@${a.discordId}> ${a.username} (${DETECTION_METHOD_WORDS[a.detectionMethod] ?? a.detectionMethod})`;
}

/** The open links by confidence; links staff dismissed ("Not the same person") count nowhere and are listed apart. */
function altLines(all: AltEntry[]): string[] {
  const alts = all.filter((a) => !a.dismissed);
  const dismissed = all.filter((a) => a.dismissed);
  const lines = alts.length === 0 ? ['**Alts:** none found'] : [`**Alts (${alts.length}):**`];
  for (const group of CONFIDENCE_GROUPS) {
    const inGroup = alts.filter((a) => a.confidence === group.confidence);
    if (inGroup.length === 0) continue;
    const shown = inGroup.slice(0, ALTS_SHOWN_PER_GROUP).map(altMention);
    const more = inGroup.length > ALTS_SHOWN_PER_GROUP ? `, and ${inGroup.length - ALTS_SHOWN_PER_GROUP} more` : '';
    lines.push(`• ${group.title} (${inGroup.length}): ${shown.join(', ')}${more}`);
  }
  if (dismissed.length > 0) {
    const shown = dismissed.slice(0, ALTS_SHOWN_PER_GROUP).map(altMention);
    const more = dismissed.length > ALTS_SHOWN_PER_GROUP ? `, and ${dismissed.length - ALTS_SHOWN_PER_GROUP} more` : '';
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
  if (user.admission) lines.push(`**Admission:** ${user.admission.action === 'review' ? 'held for staff review' : 'Limited Access'} (${user.admission.reason ?? 'a server rule'})`);
  if (user.sharedNetwork.marked) lines.push(`**Network:** marked as shared${user.sharedNetwork.label ? ` ("${user.sharedNetwork.label}")` : ''}: IP and network matches there do not count`);
  return { content: lines.join('\n'), links: [{ label: 'Open in dashboard', url: `${websiteUrl}/admin/user/${user.discordId}` }] };
}
