import express, { type Request, type Router } from 'express';
import { z } from 'zod';
import { NotFound, ServiceUnavailable, Unauthorized } from '../../errors';
import { BROWSER_TOKEN_COOKIE, BROWSER_TOKEN_MAX_AGE_MS, browserTokenFromCookieHeader } from '../../modules/browser-token';
import { fingerprintDataSchema, fingerprintHashSchema } from '../../modules/fingerprint';
import { type VerificationService, CONSENT_TOKEN_TTL_MS } from '../../modules/verification';
import { validate } from '../middleware/validate';
import { memberStanding } from '../../shared/member-badges';
import { readVisitor, writeVisitor } from '../visitor-session';

export { CONSENT_TOKEN_TTL_MS };

export interface VerificationChannelLinks {
  appUrl: string;
  webUrl: string;
}

/** Where members finish in Discord (the bot resolves the verification channel). */
export interface VerificationChannelPort {
  links(): Promise<VerificationChannelLinks | null>;
}

const consentBody = z.strictObject({
  consent: z.literal(true, 'Consent is required'),
  token: z.string('Consent token is required').min(1, 'Consent token is required').max(200),
  fingerprintData: fingerprintDataSchema,
  fingerprintHash: fingerprintHashSchema,
  /** the page's copy of the browser token; any value is accepted here and a malformed one ignored (never a 4xx: it is optional evidence) */
  browserToken: z.unknown().optional(),
});

export function visitorRouter(deps: {
  verification: VerificationService;
  channel: VerificationChannelPort;
  /** the visitor routes' rate limit (per visitor session and per address: middleware/visitor-limit.ts) */
  limit: express.RequestHandler;
  /** Secure cookies (served over https) */
  secureCookies?: boolean;
}): Router {
  const router = express.Router();

  // the browser token's cookie: HttpOnly (the page keeps its own copy in local storage), a year
  const setBrowserTokenCookie = (res: express.Response, browserToken: string) =>
    res.cookie(BROWSER_TOKEN_COOKIE, browserToken, {
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.secureCookies ?? false,
      maxAge: BROWSER_TOKEN_MAX_AGE_MS,
      path: '/',
    });

  router.get('/consent/token', deps.limit, (req, res) => {
    const { token, tokenHash } = deps.verification.issueConsentToken();
    writeVisitor(req, (v) => ({ ...v, consentTokenHash: tokenHash }));
    res.json({ token });
  });

  router.post('/consent', deps.limit, validate(consentBody), async (req, res) => {
    const body = req.body as z.infer<typeof consentBody>;
    const { browserToken, ...consent } = await deps.verification.acceptConsent({
      sessionTokenHash: readVisitor(req).consentTokenHash,
      token: body.token,
      fingerprintData: body.fingerprintData,
      fingerprintHash: body.fingerprintHash,
      browserTokenFromPage: body.browserToken,
      browserTokenFromCookie: browserTokenFromCookieHeader(req.headers.cookie),
    });
    writeVisitor(req, (v) => ({ consent, ...(v.verified ? { verified: v.verified } : {}) }));
    // the browser keeps its token twice: this cookie, and the page's copy of the value answered here
    if (browserToken) setBrowserTokenCookie(res, browserToken);
    res.json(browserToken ? { success: true, browserToken } : { success: true });
  });

  const verifiedVisitor = (req: Request) => {
    const verified = readVisitor(req).verified;
    if (!verified) throw Unauthorized('No verification in progress: start again from the verification page');
    return verified;
  };

  router.post('/rules/confirm', deps.limit, async (req, res) => {
    const { discordId } = verifiedVisitor(req);
    if (!(await deps.verification.confirmRules(discordId))) throw NotFound('Verification record');
    res.json({ success: true });
  });

  router.get('/verification/vpn-status', async (req, res) => {
    const { discordId } = verifiedVisitor(req);
    const member = await deps.verification.findMember(discordId);
    if (!member) throw NotFound('Verification record');
    const vpnDetected = member.status === 'limited_access';
    // the standing decides the outcome page: a certain alt sees the denial and the way to appeal, never the success text
    res.json({
      vpnDetected,
      vpnProvider: vpnDetected ? (member.vpnProvider ?? 'Unknown VPN provider') : null,
      standing: memberStanding(member),
    });
  });

  router.get('/discord/verification-channel', async (_req, res) => {
    const links = await deps.channel.links();
    if (!links) throw ServiceUnavailable('The verification channel is not available yet');
    res.json(links);
  });

  return router;
}
