import { snowflakeTimestamp } from '../../shared/discord-snowflake';
import { eq } from 'drizzle-orm';
import { members, verificationAttempts } from '../../db/schema';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { recordSignIn } from './verification.repository';

const vpnClean = { verdict: 'clean', provider: null, source: 'proxycheck', timezoneMismatch: false, checkFailed: false } as const;

describeEngines('recording a sign-in (member + attempt in one statement)', (getDatabase) => {
  beforeEach(async () => resetDatabase(getDatabase()));

  it('creates the member and its attempt, then refreshes the member on the next sign-in', async () => {
    const { db } = getDatabase();
    const now = new Date('2026-11-22T06:00:00.500Z');
    const evidence = {
      ip: { ipHash: 'i'.repeat(64), networkHash: 'n'.repeat(64) },
      fingerprintHash: 'f'.repeat(64),
      components: null,
      stockProfile: true,
    };
    const first = await recordSignIn(db, {
      identity: { discordId: '1001', username: 'ann', avatarUrl: null },
      outcome: 'verified',
      vpn: vpnClean,
      usedVpn: false,
      evidence,
      now,
    });
    expect(first.member).toEqual({
      id: expect.any(Number),
      discordId: '1001',
      createdAt: now,
      counters: { altsFound: 0, isLinkedAsAlt: false },
      manualAltStatus: null,
      guildAccess: 'pending',
    });
    const [stored] = await db.select().from(verificationAttempts).where(eq(verificationAttempts.id, first.attempt.id));
    expect(stored).toEqual(first.attempt);
    // the account's creation, read from the id in the statement (the raid window counts young accounts by it)
    expect(first.attempt.accountCreatedAt).toEqual(new Date(snowflakeTimestamp('1001')));
    // whether the profile looked like a stock phone, kept for re-scoring on a small server
    expect(stored!.stockProfile).toBe(true);

    // counters kept by earlier detections come back as stored
    await db.update(members).set({ altsFound: 2, isLinkedAsAlt: true }).where(eq(members.id, first.member.id));
    const later = new Date(now.getTime() + 60_000);
    const second = await recordSignIn(db, {
      identity: { discordId: '1001', username: 'ann2', avatarUrl: null },
      outcome: 'limited_access',
      vpn: { ...vpnClean, verdict: 'vpn', provider: 'X' },
      usedVpn: true,
      evidence: { ip: null, fingerprintHash: null, components: null },
      now: later,
    });
    expect(second.member).toEqual({
      id: first.member.id,
      discordId: '1001',
      createdAt: now,
      counters: { altsFound: 2, isLinkedAsAlt: true },
      manualAltStatus: null,
      guildAccess: 'pending',
    });
    const [member] = await db.select().from(members).where(eq(members.id, first.member.id));
    expect(member).toMatchObject({
      username: 'ann2',
      status: 'limited_access',
      verificationCount: 2,
      usedVpn: true,
      vpnAttempts: 1,
      fingerprintHash: null,
      networkHash: null,
      verifiedAt: later,
    });
    const attempts = await db
      .select()
      .from(verificationAttempts)
      .where(eq(verificationAttempts.memberId, first.member.id))
      .orderBy(verificationAttempts.id);
    expect(attempts.map((a) => a.stockProfile)).toEqual([true, null]);
  });
});
