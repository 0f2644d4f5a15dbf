import { isGuildMember, nextMemberRoles, sameRoles } from './member-roles';

describe('the role list of one Modify Guild Member call', () => {
  it('takes ours away, adds the new one, keeps roles others gave', () => {
    expect(nextMemberRoles(['other-bot', 'unverified'], { add: ['verified'], remove: ['unverified', 'limited'] })).toEqual(['other-bot', 'verified']);
    expect(nextMemberRoles(['verified'], { add: ['verified'], remove: ['unverified'] })).toEqual(['verified']);
    expect(nextMemberRoles([], { add: ['limited'], remove: ['unverified'] })).toEqual(['limited']);
  });

  it('sees no change when only the order differs', () => {
    expect(sameRoles(['a', 'b'], ['b', 'a'])).toBe(true);
    expect(sameRoles(['a'], ['a', 'b'])).toBe(false);
    expect(sameRoles(['a', 'b'], ['a', 'c'])).toBe(false);
  });

  it('tells a joined member (201) from the empty body of an already-member (204)', () => {
    expect(isGuildMember({ roles: [], user: { id: '1' } })).toBe(true);
    expect(isGuildMember(new ArrayBuffer(0))).toBe(false);
    expect(isGuildMember(undefined)).toBe(false);
    expect(isGuildMember(null)).toBe(false);
  });
});
