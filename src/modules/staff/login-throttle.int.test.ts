import { describeEngines, resetDatabase } from '../../test-support/database';
import { loginThrottleKeys, recordLoginSuccess, takeLoginAttempt, type LoginThrottlePolicy } from './login-throttle';

const MINUTE = 60_000;
const POLICY: LoginThrottlePolicy = {
  pair: { limit: 5, windowMs: 15 * MINUTE, blockMs: 10 * MINUTE },
  client: { limit: 100, windowMs: 15 * MINUTE, blockMs: 15 * MINUTE },
  global: { limit: 1000, windowMs: 5 * MINUTE, blockMs: 5 * MINUTE },
  account: { limit: 100, windowMs: 15 * MINUTE },
  knownClientMs: 30 * 24 * 60 * MINUTE,
  slowDownMs: 1_000,
};

describeEngines('login throttle', (getDatabase) => {
  const keys = loginThrottleKeys(Buffer.alloc(32, 7), 'Owner', '192.0.2.66');
  const T0 = new Date('2026-11-01T12:00:00Z');

  beforeEach(async () => {
    await resetDatabase(getDatabase());
  });

  it('lets exactly the limit through when 40 attempts race, and starts the block once', async () => {
    const { db } = getDatabase();
    const decisions = await Promise.all(Array.from({ length: 40 }, () => takeLoginAttempt(db, keys, T0, POLICY)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    expect(decisions.filter((d) => !d.allowed && d.blockStarted)).toHaveLength(1);
  });

  it('keeps refusing for the whole block and counts afresh once it ends', async () => {
    const { db } = getDatabase();
    for (let i = 0; i < 6; i += 1) await takeLoginAttempt(db, keys, T0, POLICY);
    const during = await takeLoginAttempt(db, keys, new Date(T0.getTime() + 9 * MINUTE), POLICY);
    expect(during).toEqual({ allowed: false, scope: 'pair', retryAfterMs: MINUTE, blockStarted: false });

    const after = new Date(T0.getTime() + 10 * MINUTE);
    const fresh = [];
    for (let i = 0; i < 6; i += 1) fresh.push(await takeLoginAttempt(db, keys, after, POLICY));
    expect(fresh.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(fresh[5]).toMatchObject({ blockStarted: true, retryAfterMs: 10 * MINUTE });
  });

  it('never refuses over the account limit: attempts there are allowed after the fixed delay, the pair limit still holds', async () => {
    const { db } = getDatabase();
    const hmac = Buffer.alloc(32, 7);
    const policy = { ...POLICY, account: { limit: 50, windowMs: 15 * MINUTE } };
    // 60 wrong passwords from 12 addresses fill the account bucket (the production limit, 50)
    for (let a = 0; a < 12; a += 1) {
      const attacker = loginThrottleKeys(hmac, 'Owner', `198.51.100.${a + 1}`);
      for (let i = 0; i < 5; i += 1) await takeLoginAttempt(db, attacker, T0, policy);
    }
    const fresh = await takeLoginAttempt(db, loginThrottleKeys(hmac, 'Owner', '203.0.113.200'), T0, policy);
    expect(fresh).toEqual({ allowed: true, knownClient: false, delayMs: POLICY.slowDownMs, slowedBy: 'account', slowStarted: false });
    const spent = await takeLoginAttempt(db, loginThrottleKeys(hmac, 'Owner', '198.51.100.1'), T0, policy);
    expect(spent).toMatchObject({ allowed: false, scope: 'pair' });
  });

  it('refuses an address spraying usernames past its limit, starting the block once even when attempts race', async () => {
    const { db } = getDatabase();
    const hmac = Buffer.alloc(32, 7);
    const decisions = await Promise.all(
      Array.from({ length: 110 }, (_, i) => takeLoginAttempt(db, loginThrottleKeys(hmac, `user-${i}`, '192.0.2.9'), T0, POLICY)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused.every((d) => !d.allowed && d.scope === 'client')).toBe(true);
    expect(refused.filter((d) => !d.allowed && d.blockStarted)).toHaveLength(1);
    // the block holds for a username never tried, and ends on time
    const later = new Date(T0.getTime() + 14 * MINUTE);
    expect(await takeLoginAttempt(db, loginThrottleKeys(hmac, 'fresh', '192.0.2.9'), later, POLICY)).toMatchObject({
      allowed: false,
      scope: 'client',
      retryAfterMs: MINUTE,
    });
    expect(
      await takeLoginAttempt(db, loginThrottleKeys(hmac, 'fresh', '192.0.2.9'), new Date(T0.getTime() + 15 * MINUTE), POLICY),
    ).toMatchObject({ allowed: true });
  });

  it('refuses everyone unknown once failures spike across addresses, and lets a known client through', async () => {
    const { db } = getDatabase();
    const hmac = Buffer.alloc(32, 7);
    const policy = { ...POLICY, global: { limit: 30, windowMs: 5 * MINUTE, blockMs: 5 * MINUTE } };
    const owner = loginThrottleKeys(hmac, 'Owner', '203.0.113.10');
    await takeLoginAttempt(db, owner, T0, policy);
    await recordLoginSuccess(db, owner, T0, policy, false);
    // 40 addresses, one made-up username each: no address bucket fills, the global one does
    const spray = [];
    for (let a = 0; a < 40; a += 1)
      spray.push(await takeLoginAttempt(db, loginThrottleKeys(hmac, `user-${a}`, `198.51.100.${a + 1}`), T0, policy));
    expect(spray.filter((d) => d.allowed)).toHaveLength(30);
    expect(spray[30]).toEqual({ allowed: false, scope: 'global', retryAfterMs: 5 * MINUTE, blockStarted: true });
    const soon = new Date(T0.getTime() + MINUTE);
    expect(await takeLoginAttempt(db, loginThrottleKeys(hmac, 'Mod', '203.0.113.99'), soon, policy)).toMatchObject({
      allowed: false,
      scope: 'global',
      retryAfterMs: 4 * MINUTE,
    });
    expect(await takeLoginAttempt(db, owner, soon, policy)).toEqual({
      allowed: true,
      knownClient: true,
      delayMs: 0,
      slowedBy: null,
      slowStarted: false,
    });
  });
});
