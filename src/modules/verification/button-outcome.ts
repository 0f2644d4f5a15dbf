/** What the 'Complete Verification!' button does for a member (docs/behaviour.md#the-discord-button). */
export type ButtonOutcome = 'no_record' | 'rules_pending' | 'denied_alt' | 'limited' | 'verified';

export interface ButtonMemberView {
  status: 'verified' | 'limited_access';
  rulesConfirmed: boolean;
  manualAltStatus: 'suspected_alt' | 'certain_alt' | null;
  isLinkedAsAlt: boolean;
}

/** The one rule for the button; a staff override (manual alt status) always wins over detection. */
export function decideButtonOutcome(member: ButtonMemberView | undefined): ButtonOutcome {
  if (!member) return 'no_record';
  if (!member.rulesConfirmed) return 'rules_pending';
  if (member.manualAltStatus === 'certain_alt' || (member.isLinkedAsAlt && member.manualAltStatus === null)) return 'denied_alt';
  if (member.status === 'limited_access') return 'limited';
  return 'verified';
}
