import { describeEngines, resetDatabase } from '../../test-support/database';
import { loginThrottleKeys, takeLoginAttempt, type LoginThrottlePolicy } from './login-throttle';

const MINUTE = 60_000;
const POLICY: LoginThrottlePolicy = {
  pair: { limit: 5, windowMs: 15 * MINUTE, blockMs: 10 * MINUTE },
  client: { limit: 100, windowMs: 15 * MINUTE },
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

  it('never refuses over the shared limits: attempts there are allowed after the fixed delay, the pair limit still holds', async () => {
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

  it('reports the first attempt over a shared limit once, even when attempts race', async () => {
    const { db } = getDatabase();
    const hmac = Buffer.alloc(32, 7);
    const decisions = await Promise.all(
      Array.from({ length: 110 }, (_, i) => takeLoginAttempt(db, loginThrottleKeys(hmac, `user-${i}`, '192.0.2.9'), T0, POLICY)),
    );
    expect(decisions.every((d) => d.allowed)).toBe(true);
    const slowed = decisions.filter((d) => d.allowed && d.slowedBy === 'client');
    expect(slowed).toHaveLength(10);
    expect(slowed.filter((d) => d.allowed && d.slowStarted)).toHaveLength(1);
  });
});
