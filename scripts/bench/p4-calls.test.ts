import { memberCalls, roleChangePlans, type LoggedCall } from './p4-calls';

const member = (id: string) => `/v10/guilds/100/members/${id}`;
const role = (id: string, roleId: string) => `${member(id)}/roles/${roleId}`;

/** A small raid as the emulator logs it: two existing members, one new one, and a log message. */
const raid: LoggedCall[] = [
  { method: 'PATCH', path: member('1') },
  { method: 'PUT', path: role('2', '7') },
  { method: 'DELETE', path: role('2', '8') },
  { method: 'PUT', path: member('3') },
  { method: 'POST', path: '/v10/channels/5/messages' },
  { method: 'PATCH', path: member('3') },
];

describe('P4: each member’s calls', () => {
  it('groups the calls by member in the order sent, by their Discord names, most common first', () => {
    const log = [...raid, { method: 'PATCH', path: member('4') }];
    const calls = memberCalls(log);
    expect(calls.patterns).toEqual([
      { calls: ['Modify Guild Member'], members: 2 },
      { calls: ['Add Guild Member Role', 'Remove Guild Member Role'], members: 1 },
      { calls: ['Add Guild Member', 'Modify Guild Member'], members: 1 },
    ]);
    expect(calls).toMatchObject({ members: 4, modify: 3, roleCalls: 2, roleByRole: 1 });
  });

  it('leaves out calls on no member, and reads paths with or without the API version or a query', () => {
    const calls = memberCalls([
      { method: 'POST', path: '/channels/5/messages' },
      { method: 'PUT', path: '/guilds/100/bans/9' },
      { method: 'DELETE', path: '/guilds/100/members/9?reason=x' },
      { method: 'GET', path: '/guilds/100/members/9' },
    ]);
    expect(calls.patterns).toEqual([{ calls: ['Remove Guild Member', 'Get Guild Member'], members: 1 }]);
    expect(calls).toMatchObject({ members: 1, modify: 0, roleCalls: 0, roleByRole: 0 });
  });

  it('counts a lone role call as a change of its own', () => {
    const calls = memberCalls([
      { method: 'PUT', path: role('1', '7') },
      { method: 'PUT', path: role('2', '7') },
      { method: 'DELETE', path: role('2', '8') },
      { method: 'PUT', path: role('2', '9') },
    ]);
    expect(calls).toMatchObject({ members: 2, roleCalls: 4, roleByRole: 3 });
  });
});

describe('P4: the same role changes sent the other ways', () => {
  const perSecond = { limit: 10, windowMs: 10_000 };

  it('prices every change as one Modify Guild Member, and the split that keeps both buckets busy', () => {
    // a --quick raid's counts: 305 calls on 190 members, 130 Modify, 60 changes as 120 role calls
    const calls = { members: 190, patterns: [], modify: 130, roleCalls: 120, roleByRole: 60 };
    const { fewestCalls, shortest } = roleChangePlans({ total: 305, members: 190, calls, edit: perSecond, roles: perSecond });
    // 40 joins + 15 messages + 190 changes
    expect(fewestCalls.calls).toBe(245);
    expect(fewestCalls.perMember).toBeCloseTo(1.289, 3);
    expect(fewestCalls.seconds).toBe(190);
    // 190 changes through 1/s + 0.5/s: 2/3 as Modify, 1/3 as two role calls
    expect(shortest.seconds).toBeCloseTo(126.67, 2);
    expect(shortest.calls).toBeCloseTo(55 + 126.67 + 2 * 63.33, 1);
    expect(shortest.perMember).toBeCloseTo(1.623, 3);
  });

  it('gives the role bucket its due when it is the faster one', () => {
    const calls = { members: 10, patterns: [], modify: 10, roleCalls: 0, roleByRole: 0 };
    const { shortest } = roleChangePlans({ total: 10, members: 10, calls, edit: perSecond, roles: { limit: 40, windowMs: 10_000 } });
    // 1/s as Modify + 4 calls/s at 2 a change: 3 changes a second
    expect(shortest.seconds).toBeCloseTo(10 / 3, 5);
    expect(shortest.calls).toBeCloseTo(10 / 3 + 2 * (20 / 3), 5);
  });

  it('reads a run with no members as one member rather than dividing by zero', () => {
    const calls = { members: 0, patterns: [], modify: 0, roleCalls: 0, roleByRole: 0 };
    const plans = roleChangePlans({ total: 3, members: 0, calls, edit: perSecond, roles: perSecond });
    expect(plans.fewestCalls).toEqual({ calls: 3, perMember: 3, seconds: 0 });
    expect(plans.shortest).toEqual({ calls: 3, perMember: 3, seconds: 0 });
  });
});
