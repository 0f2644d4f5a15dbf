import { decideButtonOutcome, type ButtonMemberView } from './button-outcome';

const member = (over: Partial<ButtonMemberView> = {}): ButtonMemberView => ({ status: 'verified', rulesConfirmed: true, manualAltStatus: null, isLinkedAsAlt: false, ...over });

describe('decideButtonOutcome', () => {
  it.each<[string, ButtonMemberView | undefined, string]>([
    ['no record', undefined, 'no_record'],
    ['rules not confirmed', member({ rulesConfirmed: false }), 'rules_pending'],
    ['rules not confirmed beats alt', member({ rulesConfirmed: false, isLinkedAsAlt: true }), 'rules_pending'],
    ['detected certain alt', member({ isLinkedAsAlt: true }), 'denied_alt'],
    ['staff marked certain alt', member({ manualAltStatus: 'certain_alt' }), 'denied_alt'],
    ['staff override clears a detected link', member({ isLinkedAsAlt: true, manualAltStatus: 'suspected_alt' }), 'verified'],
    ['suspected alt still verifies', member({ manualAltStatus: 'suspected_alt' }), 'verified'],
    ['limited access', member({ status: 'limited_access' }), 'limited'],
    ['limited access certain alt is denied', member({ status: 'limited_access', manualAltStatus: 'certain_alt' }), 'denied_alt'],
    ['verified', member(), 'verified'],
  ])('%s', (_name, input, expected) => {
    expect(decideButtonOutcome(input)).toBe(expected);
  });
});
