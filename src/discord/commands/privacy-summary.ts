import { STORED_COMPONENTS, type StoredAttempt, ALT_STATUS_WORDS, type StoredDataReport } from '../../modules/members';
import { discordTime } from './lookup-summary';

const OUTCOME_WORDS: Record<StoredAttempt['outcome'], string> = {
  verified: 'verified',
  limited_access: 'Limited Access (VPN)',
  denied: 'denied',
};

const GUILD_ACCESS_WORDS: Record<StoredDataReport['member']['guildAccess'], string> = {
  pending: 'not granted yet',
  verified: 'Verified role',
  limited: 'Limited Access role',
  denied: 'denied',
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const storedOrNot = (stored: boolean) => (stored ? 'stored' : 'not stored');

function attemptLine(attempt: StoredAttempt): string {
  const vpn = attempt.vpnVerdict === 'clean' ? 'no VPN' : `${attempt.vpnVerdict}${attempt.vpnProvider ? ` (${attempt.vpnProvider})` : ''}`;
  const flags = [
    attempt.vpnCheckFailed ? 'VPN check unavailable' : null,
    attempt.timezoneMismatch ? 'time zone unlike the IP country' : null,
  ].filter(Boolean);
  const mark = (stored: boolean) => (stored ? '✓' : '✗');
  const hashes = `IP ${mark(attempt.ipHashStored)} network ${mark(attempt.networkHashStored)} fingerprint ${mark(attempt.fingerprintHashStored)} browser token ${mark(attempt.browserTokenHashStored)} components ${attempt.componentHashesStored.length}/${STORED_COMPONENTS.length}`;
  return `• ${discordTime(attempt.at, 'd')} ${OUTCOME_WORDS[attempt.outcome]} · ${vpn}${flags.length ? ` · ${flags.join(', ')}` : ''} · hashes: ${hashes}`;
}

/** Discord's limit for one message: the attempt list shrinks to fit, the expiry line always shows. */
const MESSAGE_MAX = 2000;

/**
 * `/privacy show`: every field of the member record in words, what each stored sign-in
 * holds (which hashes exist, never their values), and when it all expires. Staff notes
 * are counted but not quoted: they are staff's internal assessment and may be about other
 * people, yet their existence is data about the member and goes with /privacy delete.
 */
export function privacySummary(report: StoredDataReport): string {
  const { member, counts } = report;
  const vpn = member.usedVpn
    ? `detected on ${plural(member.vpnAttempts, 'attempt')}${member.vpnProvider ? ` (provider: ${member.vpnProvider})` : ''}`
    : 'never detected';
  const network = member.networkHash
    ? `a keyed hash of your network (/24 or /64), not your IP: stored${report.networkMarkedShared ? '; staff marked this network as shared' : ''}`
    : 'not stored';
  const head = [
    '**What Gatekeeper stores about you**',
    `• Discord ID ${member.discordId} and username ${member.username}; avatar link ${storedOrNot(member.avatarUrl !== null)}`,
    `• Status: ${member.status === 'limited_access' ? 'Limited Access (VPN)' : 'verified'}; Discord roles: ${GUILD_ACCESS_WORDS[member.guildAccess]}; record created by ${member.source === 'manual' ? 'staff (manual entry)' : 'the website'}`,
    `• Server rules accepted: ${member.rulesConfirmedAt ? `yes, ${discordTime(member.rulesConfirmedAt)}` : member.rulesConfirmed ? 'yes' : 'no'}`,
    `• First record ${discordTime(member.createdAt)}, last verification ${discordTime(member.verifiedAt)}, last seen ${discordTime(member.lastSeenAt)}; verifications: ${member.verificationCount}`,
    `• VPN: ${vpn}`,
    `• Device fingerprint (a hash of your browser's features): ${storedOrNot(member.fingerprintHash !== null)}`,
    `• Browser token (random, in your browser's cookie and storage): only a keyed hash, ${storedOrNot(report.attempts.some((a) => a.browserTokenHashStored))}`,
    `• Network: ${network}`,
    `• Alt-status set by staff: ${ALT_STATUS_WORDS[member.manualAltStatus ?? 'none']}; marked as an alt of another account: ${member.isLinkedAsAlt ? 'yes' : 'no'}; links to other accounts: ${counts.altLinks} (not named here: that is their data)`,
    `• Staff notes: ${counts.notes} (their text is internal to staff)`,
    `**Verification attempts (${counts.attempts})**: each holds its time, outcome and VPN check result, and which of these hashes:`,
  ];
  const tail = [
    ...(counts.pendingDiscordActions > 0 ? [`Discord actions about you still waiting to run: ${counts.pendingDiscordActions}.`] : []),
    'Your IP address itself is never stored: only keyed hashes that cannot be turned back into it.',
    `**Expiry:** everything above is deleted automatically ${discordTime(report.expiresAt)} (${discordTime(report.expiresAt, 'R')}), ${report.retentionDays} days after you were last seen, unless you verify again; each attempt also goes ${report.retentionDays} days after it was made.`,
    'Delete it all now with `/privacy delete`.',
  ];
  const olderLine = (n: number) => `…and ${plural(n, 'older attempt')} holding the same kinds of data.`;
  const length = (lines: string[]) => lines.reduce((sum, line) => sum + line.length + 1, 0);
  const budget = MESSAGE_MAX - length(head) - length(tail) - olderLine(counts.attempts).length - 1;
  const listed: string[] = [];
  for (const line of report.attempts.map(attemptLine)) {
    if (length(listed) + line.length + 1 > budget) break;
    listed.push(line);
  }
  const older = counts.attempts - listed.length;
  return [...head, ...listed, ...(older > 0 ? [olderLine(older)] : []), ...tail].join('\n');
}
