import type { ManualAltStatus, MemberStanding, MemberStatus } from '../../shared/member-badges';
import { COUNTED_ALT_STRENGTHS } from '../../shared/alt-evidence-words';

/**
 * The one sentence at the top of a member's detail page that says why the member stands where
 * they stand (docs/behaviour.md#staff-screens): a staff override first, then an admission hold,
 * then the strongest alt link that counts, then Limited Access and why. Pure: the caller passes
 * what the database holds and the current time (for the date of a browser match).
 */

/** An alt link as the sentence reads it; `evidence` is the stored JSON, read defensively (older links lack fields). */
export interface ReasonLink {
  username: string;
  /** 'ip', 'fingerprint', 'both', 'network', 'manual', 'browser' or a method added later */
  method: string;
  confidence: string;
  evidence: unknown;
  otherIs: 'main' | 'alt';
  linkedAt: Date;
  updatedAt: Date;
}

export interface StandingReasonInput {
  standing: MemberStanding;
  manualAltStatus: ManualAltStatus | null;
  status: MemberStatus;
  admission: { action: 'limited' | 'review'; reason: string | null } | null;
  usedVpn: boolean;
  vpnProvider: string | null;
  /** the strongest link that counts (strongestCountingLink), or null */
  link: ReasonLink | null;
  now: Date;
}

/**
 * The link the sentence names: only open (not dismissed) medium and certain links count
 * (altsFound, docs/behaviour.md#alt-detection); a member linked
 * as alt is named after the main of a certain link; otherwise the first counting link of the
 * list, which comes strongest first (certain, then medium, newest first).
 */
export function strongestCountingLink<L extends Pick<ReasonLink, 'confidence' | 'otherIs'> & { dismissal?: unknown }>(
  links: readonly L[],
  isLinkedAsAlt: boolean,
): L | null {
  const counting = links.filter((l) => !l.dismissal && COUNTED_ALT_STRENGTHS.some((c) => c === l.confidence));
  if (isLinkedAsAlt) {
    const main = counting.find((l) => l.confidence === 'certain' && l.otherIs === 'main');
    if (main) return main;
  }
  return counting[0] ?? null;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "2 Nov" in UTC, with the year when it is not the current one ("2 Nov 2025"). */
export function shortDate(at: Date, now: Date): string {
  const day = `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]}`;
  return at.getUTCFullYear() === now.getUTCFullYear() ? day : `${day} ${at.getUTCFullYear()}`;
}

interface EvidenceFacts {
  fingerprint: boolean;
  components: boolean;
  address: boolean;
  network: boolean;
  known: boolean;
  seenAt: Date | null;
}

function readEvidence(evidence: unknown): EvidenceFacts {
  const e = evidence !== null && typeof evidence === 'object' ? (evidence as Record<string, unknown>) : {};
  const flag = (key: string) => e[key] === true;
  // address and network matches on a network staff marked shared are not evidence
  const shared = flag('sharedNetwork');
  const componentMatches = typeof e.componentMatches === 'number' ? e.componentMatches : 0;
  const seen = typeof e.seenAt === 'string' ? new Date(e.seenAt) : null;
  return {
    fingerprint: flag('fingerprintMatch'),
    components: componentMatches > 0,
    address: flag('ipMatch') && !shared,
    network: flag('networkMatch') && !shared,
    known: ['fingerprintMatch', 'ipMatch', 'networkMatch'].some((key) => typeof e[key] === 'boolean'),
    seenAt: seen && !Number.isNaN(seen.getTime()) ? seen : null,
  };
}

/** What the stored method alone says, for links whose evidence does not (older rows, unknown shapes). */
const METHOD_ONLY: Record<string, (name: string) => string> = {
  both: (name) => `Shared device profile and address with ${name}`,
  fingerprint: (name) => `Shared device profile with ${name}`,
  ip: (name) => `Same address as ${name}`,
  network: (name) => `Same network as ${name}`,
};

/** One link in words: "Shared device profile and address with @main", "Same address as @main", … */
export function linkSentence(link: ReasonLink, now: Date): string {
  const name = `@${link.username}`;
  const facts = readEvidence(link.evidence);
  if (link.method === 'manual') return `Linked by staff to ${name}`;
  if (link.method === 'browser') return `Same browser as ${name} on ${shortDate(facts.seenAt ?? link.updatedAt, now)}`;
  const device = facts.fingerprint ? 'device profile' : facts.components ? 'device components' : null;
  const place = facts.address ? 'address' : facts.network ? 'network' : null;
  if (device === 'device profile') return place ? `Shared device profile and ${place} with ${name}` : `Shared device profile with ${name}`;
  if (device === 'device components')
    return place ? `Shared ${place} and matching device components with ${name}` : `Matching device components with ${name}`;
  if (place === 'address') return `Same address as ${name}`;
  if (place === 'network') return `Same network as ${name}`;
  const byMethod = facts.known ? undefined : METHOD_ONLY[link.method];
  return byMethod ? byMethod(name) : `Linked to ${name}`;
}

/** Limited Access in words: the admission rule's reason, else the VPN (with its provider when known). */
function limitedSentence(input: StandingReasonInput): string {
  if (input.admission?.action === 'limited' && input.admission.reason) return `Limited Access: ${input.admission.reason}`;
  if (input.usedVpn)
    return input.vpnProvider ? `Limited Access after a VPN check (${input.vpnProvider})` : 'Limited Access after a VPN check';
  return 'Limited Access';
}

/** The sentence, or null when there is nothing to explain (a verified member with no counting link). */
export function standingReason(input: StandingReasonInput): string | null {
  if (input.manualAltStatus === 'certain_alt') return 'Marked certain alt by staff';
  if (input.manualAltStatus === 'suspected_alt') return 'Marked suspected alt by staff';
  if (input.admission?.action === 'review')
    return input.admission.reason ? `Held for staff review: ${input.admission.reason}` : 'Held for staff review';
  if (input.link && (input.standing === 'certain_alt' || input.status !== 'limited_access')) return linkSentence(input.link, input.now);
  if (input.status === 'limited_access') return limitedSentence(input);
  return null;
}
