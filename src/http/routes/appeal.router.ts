import express, { type Request, type Router } from 'express';
import { z } from 'zod';
import { AppError, Unauthorized } from '../../errors';
import { type AppealsService, NO_MEMBER_RECORD } from '../../modules/appeals';
import { validate } from '../middleware/validate';
import { readVisitor } from '../visitor-session';
import { SESSION_MAX_AGE_MS } from '../../shared/durations';

/**
 * How long the sign-in behind a verdict identifies the visitor for an appeal (the session
 * cookie's own lifetime); after that, or without one, the visitor signs in with Discord again.
 */
export const APPEAL_SESSION_MAX_AGE_MS = SESSION_MAX_AGE_MS;

export const SIGN_IN_AGAIN = 'Sign in with Discord again to ask staff for a review';

/** The Discord account the visitor's session names: the verification it produced, or a sign-in for the appeal. */
export function appellantOf(req: Request, now: number): string {
  const visitor = readVisitor(req);
  const candidates = [visitor.appellant, visitor.verified].filter((c): c is { discordId: string; at: number } => Boolean(c));
  const live = candidates.filter((c) => now - c.at <= APPEAL_SESSION_MAX_AGE_MS && now >= c.at).sort((a, b) => b.at - a.at)[0];
  if (!live) throw Unauthorized(SIGN_IN_AGAIN);
  return live.discordId;
}

// the message's content rules (plain text, length) are the service's: one rule for every caller
const appealBody = z.strictObject(
  { message: z.unknown().optional() },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unknown field: ${issue.keys.join(', ')}` : 'Expected a JSON object') },
);

/** GET/POST /api/appeal: the visitor's own appeal (docs/behaviour.md#appeals). */
export function appealRouter(deps: {
  appeals: Pick<AppealsService, 'visitorState' | 'file'>;
  now: () => number;
  limit: express.RequestHandler;
}): Router {
  const router = express.Router();

  router.get('/appeal', async (req, res) => {
    const state = await deps.appeals.visitorState(appellantOf(req, deps.now()));
    if (!state) throw new AppError(404, 'not_found', NO_MEMBER_RECORD);
    res.json(state);
  });

  router.post(
    '/appeal',
    (req, _res, next) => {
      // who is asking comes first: a request without a live sign-in is refused before it spends the limit
      appellantOf(req, deps.now());
      next();
    },
    deps.limit,
    validate(appealBody),
    async (req, res) => {
      const discordId = appellantOf(req, deps.now());
      const appeal = await deps.appeals.file(discordId, (req.body as z.infer<typeof appealBody>).message);
      res.status(201).json({ success: true, appeal });
    },
  );

  return router;
}
