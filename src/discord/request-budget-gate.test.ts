import { createInvalidRequests, routeFamily } from './invalid-requests';
import { createRequestBudgetGate } from './request-budget-gate';

describe('invalid requests and the budget gate', () => {
  it('counts 401/403/429 by family, not shared 429s, and forgets them after the window', () => {
    let now = 0;
    const invalid = createInvalidRequests({ limit: 100, windowMs: 60_000, now: () => now });
    expect(routeFamily('/api/v10/guilds/1/members/2/roles/3')).toBe('member-roles');
    expect(routeFamily('/oauth2/token')).toBe('oauth-token');
    invalid.record('member-roles', 403);
    invalid.record('messages', 429, 'user');
    invalid.record('messages', 429, 'shared');
    invalid.record('users-me', 404);
    expect(invalid.snapshot()).toMatchObject({ total: 2, byFamily: { 'member-roles': 1, messages: 1, 'users-me': 0 } });
    now = 61_000;
    expect(invalid.total()).toBe(0);
  });

  it('opens below 25%, spaces calls from 25%, holds non-essential calls from 50%', async () => {
    const now = 0;
    const invalid = createInvalidRequests({ limit: 100, windowMs: 60_000, now: () => now });
    const slept: number[] = [];
    const gate = createRequestBudgetGate(invalid, {
      now: () => now,
      sleep: (ms) => (slept.push(ms) < 5 ? Promise.resolve() : new Promise<void>(() => undefined)),
    });
    for (let i = 0; i < 24; i++) invalid.record('other', 401);
    await gate.pass(true);
    expect(gate.state()).toBe('open');
    expect(slept).toEqual([]);
    for (let i = 0; i < 14; i++) invalid.record('other', 401);
    expect(gate.state()).toBe('slowed');
    await gate.pass(true);
    await gate.pass(true);
    expect(slept).toHaveLength(1); // the second call waits for the first one's turn
    expect(gate.spacingMs(0.5)).toBe(gate.widestSpacingMs);
    expect(gate.widestSpacingMs).toBe(60_000 / 25);
    for (let i = 0; i < 12; i++) invalid.record('other', 401);
    expect(gate.state()).toBe('paused');
    let passed = false;
    void gate.pass(false).then(() => (passed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(passed).toBe(false);
  });
});
