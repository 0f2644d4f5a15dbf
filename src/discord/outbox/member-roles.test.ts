import { isGuildMember, roleCallsFor } from './member-roles';

describe('the role calls of one role change', () => {
  it('roles unknown: gives each role to give, then takes each role to take', () => {
    expect(roleCallsFor({ add: ['verified'], remove: ['unverified', 'limited'] })).toEqual({
      give: ['verified'],
      take: ['unverified', 'limited'],
    });
  });

  it('roles known: skips a role already held and a role not held, and never names a role others gave', () => {
    expect(roleCallsFor({ add: ['verified'], remove: ['unverified', 'limited'] }, ['pronouns', 'unverified'])).toEqual({
      give: ['verified'],
      take: ['unverified'],
    });
    expect(roleCallsFor({ add: ['verified'], remove: ['unverified'] }, ['verified'])).toEqual({ give: [], take: [] });
    expect(roleCallsFor({ add: ['limited'], remove: ['unverified'] }, [])).toEqual({ give: ['limited'], take: [] });
  });

  it('never takes a role it gives in the same change', () => {
    expect(roleCallsFor({ add: ['verified'], remove: ['verified', 'unverified'] })).toEqual({ give: ['verified'], take: ['unverified'] });
  });

  it('tells a joined member (201) from the empty body of an already-member (204)', () => {
    expect(isGuildMember({ roles: [], user: { id: '1' } })).toBe(true);
    expect(isGuildMember(new ArrayBuffer(0))).toBe(false);
    expect(isGuildMember(undefined)).toBe(false);
    expect(isGuildMember(null)).toBe(false);
  });
});
