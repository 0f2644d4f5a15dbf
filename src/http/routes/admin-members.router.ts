import type { MembersService } from '../../modules/members';
import { currentStaff } from '../middleware/staff-session';
import { validate } from '../middleware/validate';
import {
  altLinkParams,
  altStatusBody,
  discordIdParams,
  dismissAltLinkBody,
  manualEntryBody,
  noteBody,
  privacyDeleteBody,
  userListQuery,
} from './admin-members.schema';
import { validated, type StaffRoute } from './staff-route-table';

const DEFAULT_PAGE_SIZE = 50;

/** The dashboard, the user detail page and Manual Entry (docs/behaviour.md#staff-screens). */
export function adminMembersRoutes(deps: { members: MembersService }): StaffRoute[] {
  const { members } = deps;
  const byDiscordId = validate(discordIdParams, 'params');
  return [
    {
      method: 'get',
      path: '/admin/users',
      access: 'staff',
      handlers: [
        validate(userListQuery, 'query'),
        async (req, res) => {
          const query = validated(req, userListQuery, 'query');
          res.json(
            await members.list({
              search: query.search,
              filter: query.filter,
              limit: query.limit ?? DEFAULT_PAGE_SIZE,
              cursor: query.cursor,
            }),
          );
        },
      ],
    },
    {
      method: 'get',
      path: '/admin/users/:discordId',
      access: 'staff',
      handlers: [
        byDiscordId,
        async (req, res) => {
          res.json(await members.detail(validated(req, discordIdParams, 'params').discordId));
        },
      ],
    },
    {
      // the dashboard's delete (any staff)
      method: 'post',
      path: '/privacy/delete',
      access: 'staff',
      handlers: [
        validate(privacyDeleteBody),
        async (req, res) => {
          await members.remove(currentStaff(res), validated(req, privacyDeleteBody).discordId, 'dashboard');
          res.json({ success: true });
        },
      ],
    },
    {
      // the detail page's Delete User (super admins only, docs/behaviour.md#staff-roles-and-sessions)
      method: 'delete',
      path: '/admin/users/:discordId',
      access: 'super_admin',
      handlers: [
        byDiscordId,
        async (req, res) => {
          await members.remove(currentStaff(res), validated(req, discordIdParams, 'params').discordId, 'detail_page');
          res.json({ success: true });
        },
      ],
    },
    {
      method: 'post',
      path: '/admin/users/:discordId/notes',
      access: 'staff',
      handlers: [
        byDiscordId,
        validate(noteBody),
        async (req, res) => {
          const note = await members.addNote(
            currentStaff(res),
            validated(req, discordIdParams, 'params').discordId,
            validated(req, noteBody).note,
          );
          res.status(201).json({ success: true, note });
        },
      ],
    },
    {
      method: 'patch',
      path: '/admin/users/:discordId/alt-status',
      access: 'staff',
      handlers: [
        byDiscordId,
        validate(altStatusBody),
        async (req, res) => {
          const { manualAltStatus } = validated(req, altStatusBody);
          await members.setAltStatus(currentStaff(res), validated(req, discordIdParams, 'params').discordId, manualAltStatus);
          res.json({ success: true, manualAltStatus });
        },
      ],
    },
    {
      method: 'post',
      path: '/admin/users/:discordId/manual-verify',
      access: 'staff',
      handlers: [
        byDiscordId,
        async (req, res) => {
          await members.manualVerify(currentStaff(res), validated(req, discordIdParams, 'params').discordId);
          res.json({ success: true });
        },
      ],
    },
    {
      // "Not the same person" on the detail page (any staff, docs/behaviour.md#alt-detection)
      method: 'post',
      path: '/admin/users/:discordId/alt-links/:linkId/dismiss',
      access: 'staff',
      handlers: [
        validate(altLinkParams, 'params'),
        validate(dismissAltLinkBody),
        async (req, res) => {
          const { discordId, linkId } = validated(req, altLinkParams, 'params');
          await members.dismissAltLink(currentStaff(res), discordId, linkId, validated(req, dismissAltLinkBody).reason ?? null);
          res.json({ success: true });
        },
      ],
    },
    {
      method: 'post',
      path: '/admin/users/:discordId/alt-links/:linkId/reopen',
      access: 'staff',
      handlers: [
        validate(altLinkParams, 'params'),
        async (req, res) => {
          const { discordId, linkId } = validated(req, altLinkParams, 'params');
          await members.reopenAltLink(currentStaff(res), discordId, linkId);
          res.json({ success: true });
        },
      ],
    },
    {
      method: 'post',
      path: '/admin/manual-entry',
      access: 'staff',
      handlers: [
        validate(manualEntryBody),
        async (req, res) => {
          const user = await members.manualEntry(currentStaff(res), validated(req, manualEntryBody));
          res.status(201).json({ success: true, user });
        },
      ],
    },
  ];
}
