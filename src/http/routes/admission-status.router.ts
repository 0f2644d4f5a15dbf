import express, { type Router } from 'express';
import type { Database } from '../../db/client';
import { Unauthorized } from '../../errors';
import { gateMessage } from '../../modules/admission/admission-rules';
import { findMemberByDiscordId } from '../../modules/verification/verification.repository';
import { readVisitor } from '../visitor-session';

/**
 * GET /api/verification/admission: whether an admission rule (lockdown, account age)
 * applied to the visitor's verification, and the words the success page shows for it.
 */
export function admissionStatusRouter(deps: { database: Database }): Router {
  const router = express.Router();
  router.get('/verification/admission', async (req, res) => {
    const verified = readVisitor(req).verified;
    if (!verified) throw Unauthorized('No verification in progress: start again from the verification page');
    const member = await findMemberByDiscordId(deps.database.db, verified.discordId);
    const message = member ? gateMessage(member) : null;
    res.json(member?.gateAction ? { gate: { action: member.gateAction, reason: member.gateReason, message } } : { gate: null });
  });
  return router;
}
