import { z } from 'zod';
import { SHARED_NETWORK_LABEL_MAX } from '../../modules/members';

/** `POST /api/admin/users/:discordId/shared-network`: an optional short label ('school', 'family'). */
export const sharedNetworkBody = z.object({
  label: z
    .union([z.string(), z.null()], { error: 'Label must be text' })
    .optional()
    .transform((v) => (v == null || v.trim() === '' ? null : v.trim()))
    .refine((v) => v === null || v.length <= SHARED_NETWORK_LABEL_MAX, `Label must be at most ${SHARED_NETWORK_LABEL_MAX} characters`),
});
