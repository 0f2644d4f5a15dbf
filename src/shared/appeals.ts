/**
 * Appeals (docs/behaviour.md#appeals): the text rules and the response shapes the server
 * builds and the web pages read. Pure TypeScript: no DOM, no Node APIs.
 */
import type { ManualAltStatus, MemberStanding } from './member-badges';
import { MEMBER_STATES } from './member-states';
import type { UserRecord } from './admin-api';

/** Longest appeal message a visitor may send, in characters (after trimming). */
export const APPEAL_MESSAGE_MAX = 1000;
/** Longest reason staff may give for a rejection, in characters (after trimming). */
export const APPEAL_REASON_MAX = 500;

export type AppealStatus = 'open' | 'approved' | 'rejected';
/** The standings a visitor may appeal: denied as a certain alt, or kept at Limited Access. */
export type AppealableStanding = Extract<MemberStanding, 'certain_alt' | 'limited'>;

export function isAppealable(standing: MemberStanding): standing is AppealableStanding {
  return standing === 'certain_alt' || standing === 'limited';
}

/**
 * Something that reads as markup: `<` directly followed by a letter, `/`, `!` or `?`
 * (`<b>`, `</p>`, `<!--`, `<script`). A plain "I <3 this server" or "a < b" is text.
 */
const MARKUP = /<[a-z/!?]/i;

/**
 * Checks an appeal message or a rejection reason: the trimmed text, or the sentence that
 * says what is wrong with it. Plain text only: nothing that reads as HTML, at most `max`
 * characters, not empty.
 */
export function checkAppealText(
  text: unknown,
  max: number,
  what = 'The message',
): { ok: true; text: string } | { ok: false; error: string } {
  if (typeof text !== 'string') return { ok: false, error: `${what} must be text` };
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, error: `${what} cannot be empty` };
  if (trimmed.length > max) return { ok: false, error: `${what} can be at most ${max} characters` };
  if (MARKUP.test(trimmed)) return { ok: false, error: `${what} must be plain text, without HTML` };
  return { ok: true, text: trimmed };
}

/** One appeal as its visitor sees it. */
export interface VisitorAppealView {
  status: AppealStatus;
  message: string;
  createdAt: string;
  decidedAt: string | null;
  /** the staff's reason, on a rejection */
  reason: string | null;
}

/** GET /api/appeal: the signed-in visitor's standing and latest appeal. */
export interface VisitorAppealState {
  username: string;
  standing: MemberStanding;
  /** whether a new appeal can be filed now */
  canAppeal: boolean;
  appeal: VisitorAppealView | null;
}

/** What the staff queue shows of the evidence behind a member's standing. */
export interface AppealEvidence {
  /** the links that count as alts, by confidence (possible links are evidence, never shown as an accusation) */
  links: { certain: number; medium: number };
  /** the strongest counted links (at most 3): the other account, how it was found, and why in words (describeAltEvidence) */
  topLinks: { discordId: string; username: string; confidence: 'certain' | 'medium'; detectionMethod: string; why: string }[];
  vpnProvider: string | null;
  /** a server rule that applied at verification (lockdown, account age) */
  gateReason: string | null;
}

/** The Discord roles Gatekeeper manages, by their slot. */
export type AppealRole = 'verified' | 'limited' | 'unverified';

/** The roles' names as the sandbox guild and the setup guide call them. */
export const APPEAL_ROLE_NAMES: Record<AppealRole, string> = { verified: 'Verified', limited: 'Limited Access', unverified: 'Unverified' };

/**
 * What approving an appeal does (shown before, in the confirmation) and did (kept with the
 * decided appeal): the alt links it dismisses as 'not the same person', the manual status it
 * clears, whether it lifts Limited Access or a ban, and the roles it changes.
 */
export interface AppealOutcome {
  dismissedLinks: { discordId: string; username: string; confidence: 'certain' | 'medium' | 'possible'; detectionMethod: string }[];
  clearedManualStatus: ManualAltStatus | null;
  liftsLimitedAccess: boolean;
  liftsBan: boolean;
  roles: { add: AppealRole[]; remove: AppealRole[] };
}

/** The outcome in sentences: 'will' before the approval (the confirmation), 'did' after (the appeal's history). */
export function appealOutcomeLines(outcome: AppealOutcome, tense: 'will' | 'did'): string[] {
  const will = tense === 'will';
  const lines: string[] = [];
  const links = outcome.dismissedLinks;
  if (links.length > 0) {
    const names = links.map((l) => `@${l.username} (${l.confidence})`).join(', ');
    lines.push(
      `${will ? 'Dismisses' : 'Dismissed'} ${links.length === 1 ? 'the alt link' : `${links.length} alt links`} as not the same person: ${names}`,
    );
  } else lines.push(will ? 'Dismisses no alt links' : 'Dismissed no alt links');
  if (outcome.clearedManualStatus)
    lines.push(`${will ? 'Clears' : 'Cleared'} the manual ${MEMBER_STATES[outcome.clearedManualStatus].label} status`);
  if (outcome.liftsLimitedAccess) lines.push(`${will ? 'Lifts' : 'Lifted'} ${MEMBER_STATES.limited.label}`);
  if (outcome.liftsBan) lines.push(`${will ? 'Lifts' : 'Lifted'} the ban from the button's denial, if there is one`);
  const roles = (list: AppealRole[]) => list.map((r) => APPEAL_ROLE_NAMES[r]).join(', ');
  lines.push(
    `Roles: ${will ? 'adds' : 'added'} ${roles(outcome.roles.add)}; ${will ? 'removes' : 'removed'} ${roles(outcome.roles.remove)}`,
  );
  return lines;
}

/** One appeal as staff see it: open in the queue, or decided in its history. */
export interface StaffAppealView {
  id: number;
  message: string;
  status: AppealStatus;
  /** the standing when the appeal was filed */
  standingAtFiling: AppealableStanding;
  /** the standing now */
  standing: MemberStanding;
  createdAt: string;
  member: UserRecord;
  evidence: AppealEvidence;
  /** null while open */
  decidedAt: string | null;
  decidedByName: string | null;
  /** on a rejection: the reason the visitor reads */
  decisionReason: string | null;
  /** on an approval: what it did */
  outcome: AppealOutcome | null;
}

export const APPEAL_LIST_STATUSES = ['open', 'decided'] as const;
export type AppealListStatus = (typeof APPEAL_LIST_STATUSES)[number];

/** GET /api/admin/appeals?status=open|decided: the open ones oldest first, or the decided ones newest decided first. */
export interface AppealQueue {
  appeals: StaffAppealView[];
  open: number;
}

/** One of a member's appeals on their page (GET /api/admin/users/:discordId/appeals), newest first. */
export interface MemberAppealView {
  id: number;
  status: AppealStatus;
  standingAtFiling: AppealableStanding;
  message: string;
  createdAt: string;
  decidedAt: string | null;
  decidedByName: string | null;
  decisionReason: string | null;
  outcome: AppealOutcome | null;
}
