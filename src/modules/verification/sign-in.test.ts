import crypto from 'node:crypto';
import { OAuthExchangeError, type DiscordOAuth } from '../../discord/oauth-client';
import { silentLogger } from '../../logger';
import { createSignInFlow } from './sign-in';
import type { VerificationService } from './verification.service';

const consent = { at: 0, fingerprintHash: 'f'.repeat(64), components: {} as never, timezone: 'Europe/Amsterdam' };
const firstUse = Promise.resolve('ok' as const);
const input = {
  code: 'the-code',
  codeVerifier: 'v',
  redirectUri: 'http://x/oauth/callback',
  clientIp: '203.0.113.9',
  consent,
  stateUse: firstUse,
};

/** An OAuth client whose token endpoint answers from a script: a 429 with its wait, a refusal, or a token. */
function scriptedOAuth(script: Array<'ok' | 'refused' | number>) {
  const calls: number[] = [];
  const oauth: DiscordOAuth = {
    authorizeUrl: () => '',
    refreshTokens: () => Promise.reject(new Error('not used')),
    async exchangeCode() {
      calls.push(performance.now());
      const step = script.shift() ?? 'ok';
      if (step === 'ok') return { accessToken: 'token', refreshToken: 'refresh', expiresInSeconds: 604800, scope: 'identify guilds.join' };
      if (step === 'refused') throw new OAuthExchangeError('invalid_grant', 400);
      throw new OAuthExchangeError('rate limited', 429, step);
    },
    fetchIdentity: async () => ({
      id: '123456789012345678',
      username: 'someone',
      globalName: null,
      avatarUrl: null,
      bot: false,
      createdAt: new Date(0),
    }),
    revokeToken: async () => undefined,
    writeRoleConnection: async () => undefined,
  };
  return { oauth, calls };
}

function flow(oauth: DiscordOAuth, exchangeBudgetMs: number) {
  const completeVerification = jest.fn(async () => ({
    outcome: 'verified' as const,
    discordId: '123456789012345678',
    memberId: 1,
    vpnProvider: null,
    alts: [],
  }));
  const vpnCheck = jest.fn(async () => ({ verdict: 'clean', source: 'cache', provider: null, checkFailed: false }) as never);
  const signIn = createSignInFlow({
    oauth,
    vpn: {
      readCacheEarly: ({ ipHash }) => ({ ipHash, read: Promise.resolve(null) }),
      check: vpnCheck,
    },
    verification: { completeVerification } as unknown as Pick<VerificationService, 'completeVerification'>,
    ipHashKey: crypto.randomBytes(32),
    logger: silentLogger,
    exchangeBudgetMs,
  });
  return { signIn, completeVerification, vpnCheck };
}

describe('sign-in flow: token exchange under 429s', () => {
  it('waits out each Retry-After within the budget and then verifies', async () => {
    const { oauth, calls } = scriptedOAuth([50, 50, 'ok']);
    const { signIn, completeVerification } = flow(oauth, 1_000);
    await expect(signIn(input)).resolves.toEqual({ kind: 'verified', discordId: '123456789012345678' });
    expect(calls).toHaveLength(3);
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(45);
    expect(completeVerification).toHaveBeenCalledTimes(1);
  });

  it('gives up at once, as retryable, when the asked wait does not fit the budget', async () => {
    const { oauth, calls } = scriptedOAuth([100, 5_000, 'ok']);
    const { signIn, completeVerification } = flow(oauth, 1_000);
    await expect(signIn(input)).resolves.toMatchObject({ kind: 'failed', reason: 'code_exchange_failed', retryable: true });
    expect(calls).toHaveLength(2);
    expect(completeVerification).not.toHaveBeenCalled();
  });

  it('treats a refused code as final', async () => {
    const { oauth, calls } = scriptedOAuth(['refused']);
    const { signIn } = flow(oauth, 1_000);
    await expect(signIn(input)).resolves.toMatchObject({ kind: 'failed', reason: 'code_exchange_failed', retryable: false });
    expect(calls).toHaveLength(1);
  });

  it('refuses a sign-in without a client address, storing nothing', async () => {
    const { oauth } = scriptedOAuth(['ok']);
    const { signIn, completeVerification } = flow(oauth, 1_000);
    await expect(signIn({ ...input, clientIp: null })).resolves.toMatchObject({
      kind: 'failed',
      reason: 'no_client_address',
      retryable: false,
    });
    expect(completeVerification).not.toHaveBeenCalled();
  });
});

describe('sign-in flow: the VPN cache read while Discord is asked', () => {
  it("starts the request address's cache read before the code exchange and hands it to the check", async () => {
    const events: string[] = [];
    const early = { ipHash: 'early', read: Promise.resolve(null) };
    const { oauth } = scriptedOAuth(['ok']);
    const exchange = oauth.exchangeCode;
    oauth.exchangeCode = async (args) => (events.push('exchange'), exchange(args));
    const checks: unknown[] = [];
    const signIn = createSignInFlow({
      oauth,
      vpn: {
        readCacheEarly: (address) => (events.push(`early read ${address.ip}`), { ...early, ipHash: address.ipHash }),
        check: async (args) => (checks.push(args), { verdict: 'clean', source: 'cache', provider: null, checkFailed: false }) as never,
      },
      verification: {
        completeVerification: async () => ({ outcome: 'verified', discordId: '1', memberId: 1, vpnProvider: null, alts: [] }),
      } as never,
      ipHashKey: crypto.randomBytes(32),
      logger: silentLogger,
    });
    await expect(signIn(input)).resolves.toMatchObject({ kind: 'verified' });
    expect(events).toEqual(['early read 203.0.113.9', 'exchange']);
    const [check] = checks as { ip: string; ipHash: string; earlyCacheRead: { ipHash: string } }[];
    expect(check).toMatchObject({ ip: '203.0.113.9', earlyCacheRead: { ipHash: check!.ipHash } });
  });
});

describe('sign-in flow: the OAuth state used up while Discord is asked', () => {
  it("asks Discord before the state's use has settled, and verifies only once it has", async () => {
    let settle!: (use: 'ok') => void;
    const stateUse = new Promise<'ok'>((resolve) => (settle = resolve));
    const { oauth, calls } = scriptedOAuth(['ok']);
    const { signIn, completeVerification } = flow(oauth, 1_000);
    const result = signIn({ ...input, stateUse });
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toHaveLength(1);
    expect(completeVerification).not.toHaveBeenCalled();
    settle('ok');
    await expect(result).resolves.toEqual({ kind: 'verified', discordId: '123456789012345678' });
    expect(completeVerification).toHaveBeenCalledTimes(1);
  });

  it.each([['ok' as const], ['refused' as const]])(
    'ends a state used before at the VPN check, storing nothing (Discord answered %s)',
    async (discord) => {
      const { oauth } = scriptedOAuth([discord]);
      const { signIn, completeVerification, vpnCheck } = flow(oauth, 1_000);
      await expect(signIn({ ...input, stateUse: Promise.resolve('state_replayed_or_expired') })).resolves.toEqual({
        kind: 'failed',
        reason: 'state_replayed_or_expired',
        retryable: false,
      });
      expect(vpnCheck).not.toHaveBeenCalled();
      expect(completeVerification).not.toHaveBeenCalled();
    },
  );

  it('offers a new sign-in when the use could not be recorded', async () => {
    const { oauth } = scriptedOAuth(['ok']);
    const { signIn, completeVerification } = flow(oauth, 1_000);
    await expect(signIn({ ...input, stateUse: Promise.resolve('state_check_failed') })).resolves.toEqual({
      kind: 'failed',
      reason: 'state_check_failed',
      retryable: true,
    });
    expect(completeVerification).not.toHaveBeenCalled();
  });
});
