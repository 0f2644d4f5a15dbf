import { memberStanding, type StandingSubject } from '../../shared/member-badges';
import type { GateAction } from './admission-rules';

/** What the 'Complete Verification!' button does for a member by their standing (docs/behaviour.md#the-discord-button). */
export type ButtonOutcome = 'no_record' | 'rules_pending' | 'denied_alt' | 'limited' | 'verified';

/** What the button does once the admission rules are applied: 'held' when one holds the member for staff review. */
export type ButtonDecision = ButtonOutcome | 'held';

export type ButtonMemberView = StandingSubject;

/**
 * The one rule for the button, read from the member's standing (memberStanding): no record
 * and unconfirmed rules first, then a certain alt is denied (a staff override wins over
 * detection: a linked member staff marked suspected is not denied), then Limited Access,
 * otherwise verified. A suspected alt is not denied: it gets the role its status gives.
 * A release from review gives what this says (admission.service.ts).
 */
export function decideButtonOutcome(member: ButtonMemberView | undefined): ButtonOutcome {
  if (!member) return 'no_record';
  if (!member.rulesConfirmed) return 'rules_pending';
  if (memberStanding(member) === 'certain_alt') return 'denied_alt';
  if (member.status === 'limited_access') return 'limited';
  return 'verified';
}

/**
 * What a click does: the standing's outcome, then the admission rule stored on the member (lockdown,
 * account age) for one the button would let in: held for review, or kept at Limited Access. A denial,
 * no record and unconfirmed rules stay as they are.
 */
export function decideAtButton(member: (ButtonMemberView & { gateAction: GateAction | null }) | undefined): ButtonDecision {
  const outcome = decideButtonOutcome(member);
  if (!member || (outcome !== 'verified' && outcome !== 'limited')) return outcome;
  if (member.gateAction === 'review') return 'held';
  if (member.gateAction === 'limited') return 'limited';
  return outcome;
}
