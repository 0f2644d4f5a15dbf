import { memberStanding, type StandingSubject } from '../../shared/member-badges';

/** What the 'Complete Verification!' button does for a member (docs/behaviour.md#the-discord-button). */
export type ButtonOutcome = 'no_record' | 'rules_pending' | 'denied_alt' | 'limited' | 'verified';

export type ButtonMemberView = StandingSubject;

/**
 * The one rule for the button, read from the member's standing (memberStanding): no record
 * and unconfirmed rules first, then a certain alt is denied (a staff override wins over
 * detection: a linked member staff marked suspected is not denied), then Limited Access,
 * otherwise verified. A suspected alt is not denied: it gets the role its status gives.
 */
export function decideButtonOutcome(member: ButtonMemberView | undefined): ButtonOutcome {
  if (!member) return 'no_record';
  if (!member.rulesConfirmed) return 'rules_pending';
  if (memberStanding(member) === 'certain_alt') return 'denied_alt';
  if (member.status === 'limited_access') return 'limited';
  return 'verified';
}
