import type { SharedNetworkService } from '../../modules/members';
import { currentStaff } from '../middleware/staff-session';
import { validate } from '../middleware/validate';
import { discordIdParams } from './admin-members.schema';
import { sharedNetworkBody } from './admin-shared-networks.schema';
import { validated, type StaffRoute } from './staff-route-table';

/** Shared networks (docs/behaviour.md#alt-detection): listed, and marked or unmarked through a member on them. */
export function adminSharedNetworksRoutes(deps: { sharedNetworks: SharedNetworkService }): StaffRoute[] {
  const { sharedNetworks } = deps;
  const byDiscordId = validate(discordIdParams, 'params');
  return [
    {
      method: 'get',
      path: '/admin/shared-networks',
      access: 'staff',
      handlers: [
        async (_req, res) => {
          res.json(await sharedNetworks.list());
        },
      ],
    },
    {
      method: 'post',
      path: '/admin/users/:discordId/shared-network',
      access: 'staff',
      handlers: [
        byDiscordId,
        validate(sharedNetworkBody),
        async (req, res) => {
          const { label } = validated(req, sharedNetworkBody);
          const change = await sharedNetworks.markForMember(currentStaff(res), validated(req, discordIdParams, 'params').discordId, label);
          res.json({ success: true, sharedNetwork: { marked: true, label: change.label }, members: change.members });
        },
      ],
    },
    {
      method: 'delete',
      path: '/admin/users/:discordId/shared-network',
      access: 'staff',
      handlers: [
        byDiscordId,
        async (req, res) => {
          const change = await sharedNetworks.unmarkForMember(currentStaff(res), validated(req, discordIdParams, 'params').discordId);
          res.json({ success: true, sharedNetwork: { marked: false, label: null }, members: change.members });
        },
      ],
    },
  ];
}
