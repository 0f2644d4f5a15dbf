/**
 * The one vocabulary of member states (docs/behaviour.md#member-states): each standing
 * (memberStanding, the one answer to "what is this member") with its label, its colour and a
 * one-line explanation. The dashboard's badges, list headings and detail page, `/lookup`, the
 * bot's log lines, the appeals queue and the statistics page all read their words from here,
 * so a state reads the same wherever staff meet it. Pure TypeScript: no DOM, no Node APIs.
 */
/** A member's standing: the one state the badges, the list and the button are read from. */
export type MemberStanding = 'certain_alt' | 'suspected_alt' | 'limited' | 'verified' | 'pending';

/** success = green, warning = amber, danger = red (docs/behaviour.md#badges-on-a-member-card); neutral and info for the rest. */
export type BadgeTone = 'success' | 'warning' | 'danger' | 'neutral' | 'info';

export interface MemberStateWords {
  label: string;
  tone: BadgeTone;
  /** one sentence a newcomer can read: what the state means and what the member can do in Discord */
  explanation: string;
}

export const MEMBER_STANDINGS = [
  'certain_alt',
  'suspected_alt',
  'limited',
  'verified',
  'pending',
] as const satisfies readonly MemberStanding[];

export const MEMBER_STATES: Record<MemberStanding, MemberStateWords> = {
  certain_alt: {
    label: 'Certain Alt',
    tone: 'danger',
    explanation: 'Another account of someone already verified (detected or marked by staff); the Discord button denies it.',
  },
  suspected_alt: {
    label: 'Suspected Alt',
    tone: 'warning',
    explanation: 'Staff think this may be another account of a member; it is flagged for review but not denied.',
  },
  limited: {
    label: 'Limited Access',
    tone: 'info',
    explanation: 'Verified through a VPN or kept back by a server rule: only the Limited Access channels.',
  },
  verified: {
    label: 'Verified',
    tone: 'success',
    explanation: 'Rules confirmed (or verified by staff): the Discord button gives the Verified role.',
  },
  pending: {
    label: 'Pending',
    tone: 'neutral',
    explanation: 'Signed in on the website but has not confirmed the rules yet.',
  },
};

/** The label of a standing, for sentences ("kept at Limited Access", "Status: Certain Alt"). */
export function standingLabel(standing: MemberStanding): string {
  return MEMBER_STATES[standing].label;
}
