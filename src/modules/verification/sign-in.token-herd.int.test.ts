import crypto from 'node:crypto';
import { createDiscordEmulator, type DiscordEmulator } from '../../discord-emulator';
import { createDiscordOAuth, createPkcePair, type DiscordOAuth } from '../../discord/oauth-client';
import { silentLogger } from '../../logger';
import { createSignInFlow } from './sign-in';
import type { VerificationService } from './verification.service';

jest.setTimeout(60_000);

const REDIRECT = 'http://127.0.0.1/oauth/callback';
const consent = { at: 0, fingerprintHash: 'f'.repeat(64), components: {} as never, timezone: 'Europe/Amsterdam' };

/**
 * Many visitors finishing their sign-in at once against the emulator's token endpoint with a
 * small limit (5 per 250 ms: Discord's shape, scaled down). The product's OAuth client and
 * sign-in flow are the real ones; only the VPN check and the database are left out. All the
 * process's sign-ins share one queue for the code exchange, so the crowd draws at most a handful
 * of 429s whatever its size (each one counts toward Discord's invalid-request limit, past which
 * the address is banned), and every visitor is verified.
 */
describe('sign-in flow: a crowd on a rate-limited token endpoint', () => {
  let emulator: DiscordEmulator;
  let oauth: DiscordOAuth;

  beforeAll(async () => {
    emulator = await createDiscordEmulator({ rateLimits: { buckets: { oauth: { limit: 5, windowMs: 250 } } }, redirectUris: [REDIRECT] });
    oauth = createDiscordOAuth({
      apiBase: emulator.apiBase,
      authorizeBase: emulator.authorizeUrl.replace(/\/oauth2\/authorize$/, ''),
      clientId: emulator.application.clientId,
      clientSecret: emulator.application.clientSecret,
    });
  });
  afterAll(async () => emulator?.close());

  const signIn = () =>
    createSignInFlow({
      oauth,
      vpn: {
        readCacheEarly: ({ ipHash }) => ({ ipHash, read: Promise.resolve(null) }),
        check: async () => ({ verdict: 'clean', source: 'cache', provider: null, checkFailed: false }) as never,
      },
      verification: { completeVerification: async () => ({ outcome: 'verified' }) } as unknown as Pick<
        VerificationService,
        'completeVerification'
      >,
      ipHashKey: crypto.randomBytes(32),
      logger: silentLogger,
    });

  /** A visitor who approved the authorize page: the callback's input. */
  function approved(n: number) {
    const user = emulator.createUser({ username: `crowd-${n}` });
    const pkce = createPkcePair();
    const { code } = emulator.authorizeAs(
      user.id,
      oauth.authorizeUrl({ state: `state-${n}`, codeChallenge: pkce.challenge, redirectUri: REDIRECT }),
    );
    return {
      code,
      codeVerifier: pkce.verifier,
      redirectUri: REDIRECT,
      clientIp: '203.0.113.9',
      consent,
      stateUse: Promise.resolve('ok' as const),
    };
  }

  const tokenEndpoint429s = () => emulator.state.requestLog.filter((r) => r.route === '/oauth2/token' && r.status === 429).length;

  it.each([30, 100])('%i visitors coming back at once: all verified, at most 3 answers of 429', async (visitors) => {
    const finish = signIn();
    const crowd = Array.from({ length: visitors }, (_, i) => approved(visitors * 1000 + i));
    const before = tokenEndpoint429s();
    const results = await Promise.all(crowd.map((input) => finish(input)));
    const drawn = tokenEndpoint429s() - before;
    // the figure the report quotes (before/after the shared queue)
    process.stdout.write(`${visitors} concurrent sign-ins: ${drawn} × 429 on POST /oauth2/token\n`);
    expect(results.filter((r) => r.kind !== 'verified')).toEqual([]);
    expect(drawn).toBeLessThanOrEqual(3);
  });
});
