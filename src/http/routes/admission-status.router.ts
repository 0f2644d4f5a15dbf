import express, { type Router } from 'express';
import { Unauthorized } from '../../errors';
import type { AdmissionService } from '../../modules/admission';
import { readVisitor } from '../visitor-session';

/**
 * GET /api/verification/admission: whether an admission rule (lockdown, account age)
 * applied to the visitor's verification, and the words the success page shows for it.
 */
export function admissionStatusRouter(deps: { admission: Pick<AdmissionService, 'visitorGate'> }): Router {
  const router = express.Router();
  router.get('/verification/admission', async (req, res) => {
    const verified = readVisitor(req).verified;
    if (!verified) throw Unauthorized('No verification in progress: start again from the verification page');
    res.json({ gate: await deps.admission.visitorGate(verified.discordId) });
  });
  return router;
}
