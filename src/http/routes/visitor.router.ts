import express, { type Request, type Router } from 'express';
import { z } from 'zod';
import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { AppError, BadRequest, NotFound, ServiceUnavailable, Unauthorized } from '../../errors';
import { fingerprintDataSchema, fingerprintHashSchema, verifyFingerprint } from '../../modules/fingerprint';
import { hashFingerprintComponents } from '../../modules/fingerprint/fingerprint-components';
import { hashToken, oneTimeTokensRepository } from '../../modules/verification/one-time-tokens.repository';
import type { VerificationService } from '../../modules/verification/verification.service';
import { validate } from '../middleware/validate';
import { readVisitor, writeVisitor } from '../visitor-session';

export const CONSENT_TOKEN_TTL_MS = 10 * 60 * 1000;

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
});

const invalidToken = () => new AppError(400, 'invalid_consent_token', 'Invalid or expired consent token', 'token');

export function visitorRouter(deps: {
  database: Database;
  clock: Clock;
  verification: VerificationService;
  channel: VerificationChannelPort;
  /** per-visitor rate limit (keyed by IP hash) */
  limit: express.RequestHandler;
}): Router {
  const router = express.Router();
  const { db } = deps.database;

  router.get('/consent/token', deps.limit, async (req, res) => {
    const { token, tokenHash } = await oneTimeTokensRepository.issue(db, 'consent', CONSENT_TOKEN_TTL_MS, deps.clock.now());
    writeVisitor(req, (v) => ({ ...v, consentTokenHash: tokenHash }));
    res.json({ token });
  });

  router.post('/consent', deps.limit, validate(consentBody), async (req, res) => {
    const body = req.body as z.infer<typeof consentBody>;
    const now = deps.clock.now();
    const visitor = readVisitor(req);
    if (!visitor.consentTokenHash || visitor.consentTokenHash !== hashToken(body.token)) throw invalidToken();
    if (!verifyFingerprint(body.fingerprintData, body.fingerprintHash)) {
      // a dead token is reported first, as if it had been checked first; a live one stays unused
      if (!(await oneTimeTokensRepository.isLive(db, 'consent', body.token, now))) throw invalidToken();
      throw BadRequest('Fingerprint hash does not match the fingerprint data', 'fingerprintHash');
    }
    // everything else checked: checking the token and using it up is one statement
    if (!(await oneTimeTokensRepository.consume(db, 'consent', body.token, now))) throw invalidToken();
    writeVisitor(req, (v) => ({
      consent: {
        at: now.getTime(),
        fingerprintHash: body.fingerprintHash,
        components: hashFingerprintComponents(body.fingerprintData),
        timezone: body.fingerprintData.timezone.slice(0, 64),
      },
      ...(v.verified ? { verified: v.verified } : {}),
    }));
    res.json({ success: true });
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
    res.json({ vpnDetected, vpnProvider: vpnDetected ? (member.vpnProvider ?? 'Unknown VPN provider') : null });
  });

  router.get('/discord/verification-channel', async (_req, res) => {
    const links = await deps.channel.links();
    if (!links) throw ServiceUnavailable('The verification channel is not available yet');
    res.json(links);
  });

  return router;
}
