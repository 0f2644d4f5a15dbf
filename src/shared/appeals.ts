/**
 * Appeals (docs/behaviour.md#appeals): the text rules and the response shapes the server
 * builds and the web pages read. Pure TypeScript: no DOM, no Node APIs.
 */
import type { MemberStanding } from './member-badges';
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
export function checkAppealText(text: unknown, max: number, what = 'The message'): { ok: true; text: string } | { ok: false; error: string } {
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

/** One open appeal in the staff queue. */
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
}

/** GET /api/admin/appeals */
export interface AppealQueue {
  appeals: StaffAppealView[];
  open: number;
}
