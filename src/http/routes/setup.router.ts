import type { StaffAccountsService } from '../../modules/staff';
import { validate } from '../middleware/validate';
import { setupBody } from './staff-auth.schema';
import { validated, type StaffRoute } from './staff-route-table';

/** /setup (docs/behaviour.md#staff-roles-and-sessions): open only while no staff account exists, and only with the setup code. */
export function setupRoutes(deps: { accounts: StaffAccountsService }): StaffRoute[] {
  return [
    {
      method: 'get',
      path: '/setup-admin',
      access: 'public',
      handlers: [
        async (_req, res) => {
          res.json({ available: await deps.accounts.setupAvailable() });
        },
      ],
    },
    {
      method: 'post',
      path: '/setup-admin',
      access: 'public',
      handlers: [
        validate(setupBody),
        async (req, res) => {
          const owner = await deps.accounts.setupOwner(validated(req, setupBody));
          res.status(201).json({ success: true, username: owner.username });
        },
      ],
    },
  ];
}
