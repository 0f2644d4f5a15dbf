import express, { type Request, type Response, type Router } from 'express';
import type { Clock } from '../../clock';
import type { Logger } from '../../logger';
import { createPkcePair, type DiscordOAuth } from '../../discord/oauth-client';
import { hashIp, resolveClientIp } from '../../modules/network';
import type { VerificationService } from '../../modules/verification/verification.service';
import type { VpnCheckResult } from '../../modules/vpn/vpn.types';
import { readVisitor, writeVisitor } from '../visitor-session';

/** consent older than this must be given again before signing in */
const CONSENT_MAX_AGE_MS = 30 * 60 * 1000;

/** The VPN/proxy pipeline as the callback needs it (src/modules/vpn implements it). */
export interface VpnCheckPort {
  check(input: { ip: string; ipHash: string; browserTimezone?: string }): Promise<VpnCheckResult>;
}

/** Sandbox only: the address a fake Discord user "on a VPN" appears to come from. */
export interface SandboxNetworkPort {
  simulatedIpFor(discordId: string): string | null;
}

/**
 * GET /oauth/start and /oauth/callback: state bound to the
 * session and single use, PKCE S256, scopes identify + guilds.join. Any failure before
 * the verification is stored sends the visitor to /error; nothing is written then.
 */
export function oauthRouter(deps: {
  clock: Clock;
  logger: Logger;
  oauth: DiscordOAuth;
  vpn: VpnCheckPort;
  verification: VerificationService;
  ipHashKey: Buffer;
  publicUrl?: string;
  sandboxNetwork?: SandboxNetworkPort;
  limit: express.RequestHandler;
}): Router {
  const router = express.Router();
  const redirectUri = (req: Request) => `${deps.publicUrl ?? `${req.protocol}://${req.get('host')}`}/oauth/callback`;
  const fail = (req: Request, res: Response, reason: string, extra: Record<string, unknown> = {}) => {
    deps.logger.warn({ reason, ...extra }, 'verification sign-in failed');
    writeVisitor(req, (v) => ({ ...(v.verified ? { verified: v.verified } : {}) }));
    res.redirect(303, '/error');
  };

  router.get('/oauth/start', deps.limit, async (req, res) => {
    const now = deps.clock.now();
    const visitor = readVisitor(req);
    if (!visitor.consent || now.getTime() - visitor.consent.at > CONSENT_MAX_AGE_MS) {
      res.redirect(303, '/');
      return;
    }
    const { token: state, tokenHash } = await deps.verification.issueSignInState();
    const pkce = createPkcePair();
    writeVisitor(req, (v) => ({ ...v, oauth: { stateHash: tokenHash, verifier: pkce.verifier, at: now.getTime() } }));
    res.redirect(303, deps.oauth.authorizeUrl({ state, codeChallenge: pkce.challenge, redirectUri: redirectUri(req) }));
  });

  router.get('/oauth/callback', deps.limit, async (req, res) => {
    const now = deps.clock.now();
    const visitor = readVisitor(req);
    const query = req.query as Record<string, unknown>;
    const state = typeof query.state === 'string' ? query.state : '';
    const code = typeof query.code === 'string' ? query.code : '';

    if (typeof query.error === 'string') return fail(req, res, 'oauth_denied', { error: query.error.slice(0, 64) });
    if (!visitor.oauth || !visitor.consent) return fail(req, res, 'no_flow_in_session');
    const stateCheck = await deps.verification.consumeSignInState(state, visitor.oauth.stateHash);
    if (stateCheck !== 'ok') return fail(req, res, stateCheck);
    if (!code || code.length > 512) return fail(req, res, 'missing_code');

    let identity;
    let accessToken: string;
    try {
      ({ accessToken } = await deps.oauth.exchangeCode({ code, codeVerifier: visitor.oauth.verifier, redirectUri: redirectUri(req) }));
      identity = await deps.oauth.fetchIdentity(accessToken);
    } catch (error) {
      return fail(req, res, 'code_exchange_failed', { message: error instanceof Error ? error.message.slice(0, 200) : 'unknown' });
    }
    if (identity.bot) return fail(req, res, 'bot_account');

    const ip = deps.sandboxNetwork?.simulatedIpFor(identity.id) ?? resolveClientIp(req);
    if (!ip) return fail(req, res, 'no_client_address');
    const ipHashes = hashIp(deps.ipHashKey, ip);
    const vpn = await deps.vpn.check({ ip, ipHash: ipHashes.ipHash, browserTimezone: visitor.consent.timezone });

    try {
      const result = await deps.verification.completeVerification({
        identity: { discordId: identity.id, username: identity.username, avatarUrl: identity.avatarUrl },
        accessToken,
        vpn,
        evidence: { ip: ipHashes, fingerprintHash: visitor.consent.fingerprintHash, components: visitor.consent.components },
      });
      if (result.outcome === 'denied') return fail(req, res, 'vpn_policy_denied');
      writeVisitor(req, () => ({ verified: { discordId: identity.id, at: now.getTime() } }));
      res.redirect(303, '/rules');
    } catch (error) {
      deps.logger.error({ err: error }, 'storing the verification failed');
      return fail(req, res, 'store_failed');
    }
  });

  return router;
}
