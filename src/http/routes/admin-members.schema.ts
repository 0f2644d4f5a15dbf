import { DISMISS_REASON_MAX, STAFF_NOTE_MAX } from '../../shared/text-limits';
import { z } from 'zod';
import { MEMBER_FILTERS } from '../../shared/member-badges';
import { decodeMemberCursor } from '../../modules/members';

/** Request shapes of the member routes, with the messages of docs/behaviour.md#validation-and-messages where one is defined. */

/** A Discord user id (snowflake): 15–21 digits, as in env.ts. */
export const SNOWFLAKE = /^\d{15,21}$/;
export const INVALID_DISCORD_ID = 'Discord ID must be a numeric Discord user ID';

export const discordIdParams = z.object({
  discordId: z.string().regex(SNOWFLAKE, INVALID_DISCORD_ID),
});

/** A member's page and one of its alt links: …/users/:discordId/alt-links/:linkId/… */
export const altLinkParams = discordIdParams.extend({
  linkId: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, 'Link ID must be a positive whole number')
    .transform(Number),
});

export const dismissAltLinkBody = z.object({
  reason: z
    .union([z.string(), z.null()], { error: 'Reason must be text' })
    .optional()
    .refine((v) => v == null || v.length <= DISMISS_REASON_MAX, `Reason must be at most ${DISMISS_REASON_MAX} characters`),
});

const requiredDiscordId = z
  .string({ error: 'Discord ID is required' })
  .trim()
  .min(1, 'Discord ID is required')
  .regex(SNOWFLAKE, INVALID_DISCORD_ID);

export const privacyDeleteBody = z.object({ discordId: requiredDiscordId });

export const userListQuery = z.object({
  search: z.string().max(100, 'Search must be at most 100 characters').optional(),
  filter: z.enum(MEMBER_FILTERS, { error: 'Filter must be all, verified, unverified or certain_alts' }).default('all'),
  limit: z
    .string()
    .regex(/^\d+$/, 'Limit must be a number from 1 to 200')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 200, 'Limit must be a number from 1 to 200')
    .optional(),
  cursor: z
    .string()
    .max(200, 'Invalid cursor')
    .transform((text, ctx) => {
      const cursor = decodeMemberCursor(text);
      if (!cursor) ctx.addIssue({ code: 'custom', message: 'Invalid cursor' });
      return cursor ?? undefined;
    })
    .optional(),
});

export const noteBody = z.object({
  note: z
    .string({ error: 'Note is required' })
    .trim()
    .min(1, 'Note is required')
    .max(STAFF_NOTE_MAX, `Note must be at most ${STAFF_NOTE_MAX} characters`),
});

const ALT_STATUS_MESSAGE = 'manualAltStatus must be suspected_alt, certain_alt or null';
export const altStatusBody = z.object({
  manualAltStatus: z.union([z.enum(['suspected_alt', 'certain_alt']), z.null()], { error: ALT_STATUS_MESSAGE }),
});

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** The manual entry payload (docs/behaviour.md#records-and-their-fields); rulesConfirmed arrives as the text 'true' or 'false'. */
export const manualEntryBody = z.object({
  discordId: requiredDiscordId,
  username: z
    .string({ error: 'Username is required' })
    .trim()
    .min(1, 'Username is required')
    .max(100, 'Username must be at most 100 characters'),
  avatarUrl: z
    .union([z.string(), z.null()], { error: 'Avatar URL must be an http(s) URL' })
    .optional()
    .transform((v) => (v == null || v.trim() === '' ? null : v.trim()))
    .refine((v) => v === null || (v.length <= 2048 && isHttpUrl(v)), 'Avatar URL must be an http(s) URL'),
  status: z.enum(['verified', 'limited_access'], { error: 'Status must be verified or limited_access' }),
  rulesConfirmed: z
    .union([z.enum(['true', 'false']), z.boolean()], { error: "Rules confirmed must be 'true' or 'false'" })
    .transform((v) => v === true || v === 'true'),
  manualAltStatus: z
    .union([z.enum(['suspected_alt', 'certain_alt']), z.literal(''), z.null()], { error: ALT_STATUS_MESSAGE })
    .optional()
    .transform((v) => (v ? v : null)),
});
