import { oneTimeTokens as oneTimeTokensTable } from '../../db/schema';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createOneTimeTokens, hashToken } from './one-time-tokens.repository';

describeEngines('one-time tokens (signed when issued, recorded when used)', (getDatabase) => {
  beforeEach(async () => resetDatabase(getDatabase()));
  const tokens = createOneTimeTokens(Buffer.alloc(32, 9));
  const now = new Date('2026-11-27T04:00:00.000Z');
  const TEN_MINUTES = 10 * 60 * 1000;
  const rows = () => getDatabase().db.select().from(oneTimeTokensTable);

  it('issues without writing, and records only the hash of a used token, with its expiry', async () => {
    const { db } = getDatabase();
    const { token, tokenHash } = tokens.issue('consent', TEN_MINUTES, now);
    expect(tokenHash).toBe(hashToken(token));
    expect(await rows()).toHaveLength(0);
    expect(await tokens.isLive(db, 'consent', token, now)).toBe(true);
    expect(await tokens.consume(db, 'consent', token, now)).toBe(true);
    expect(await rows()).toEqual([
      { tokenHash, purpose: 'consent', expiresAt: new Date(now.getTime() + TEN_MINUTES), usedAt: now, createdAt: now },
    ]);
  });

  it('is used once: a second use and a liveness check after it fail', async () => {
    const { db } = getDatabase();
    const { token } = tokens.issue('oauth_state', TEN_MINUTES, now);
    expect(await tokens.consume(db, 'oauth_state', token, now)).toBe(true);
    expect(await tokens.consume(db, 'oauth_state', token, now)).toBe(false);
    expect(await tokens.isLive(db, 'oauth_state', token, now)).toBe(false);
    expect(await rows()).toHaveLength(1);
  });

  it('lets exactly one of many simultaneous uses through', async () => {
    const { db } = getDatabase();
    const { token } = tokens.issue('consent', TEN_MINUTES, now);
    const results = await Promise.all(Array.from({ length: 8 }, () => tokens.consume(db, 'consent', token, now)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('refuses an expired, forged or other-purpose token, and writes nothing for it', async () => {
    const { db } = getDatabase();
    const { token } = tokens.issue('consent', TEN_MINUTES, now);
    const atExpiry = new Date(now.getTime() + TEN_MINUTES);
    expect(await tokens.isLive(db, 'consent', token, atExpiry)).toBe(false);
    expect(await tokens.consume(db, 'consent', token, atExpiry)).toBe(false);
    expect(await tokens.consume(db, 'oauth_state', token, now)).toBe(false);
    const forged = createOneTimeTokens(Buffer.alloc(32, 1)).issue('consent', TEN_MINUTES, now).token;
    expect(await tokens.isLive(db, 'consent', forged, now)).toBe(false);
    expect(await tokens.consume(db, 'consent', forged, now)).toBe(false);
    expect(await tokens.consume(db, 'consent', 'not a token', now)).toBe(false);
    expect(await rows()).toHaveLength(0);
    // the same token is still good before its expiry
    expect(await tokens.consume(db, 'consent', token, new Date(atExpiry.getTime() - 1))).toBe(true);
  });
});
