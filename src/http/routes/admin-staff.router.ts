import type { StaffAccountsService, StaffAccount } from '../../modules/staff';
import { currentStaff, renewStaffSessionEpoch } from '../middleware/staff-session';
import { validate } from '../middleware/validate';
import { createStaffBody, staffIdParams, staffManagementCreateBody, staffPasswordBody, superAdminBody } from './admin-staff.schema';
import { validated, type StaffRoute } from './staff-route-table';

/** A staff account as the API returns it (plus isOwner, so the page can hide the owner's controls). */
function staffView(s: StaffAccount) {
  return { id: s.id, username: s.username, isSuperAdmin: s.isSuperAdmin, isOwner: s.isOwner, discordId: s.discordId };
}

/** Create Staff (any staff) and Staff Management (super admins only; docs/behaviour.md#staff-roles-and-sessions). */
export function adminStaffRoutes(deps: { accounts: StaffAccountsService }): StaffRoute[] {
  const { accounts } = deps;
  const byId = validate(staffIdParams, 'params');
  return [
    {
      method: 'post',
      path: '/admin/create-staff',
      access: 'staff',
      handlers: [
        validate(createStaffBody),
        async (req, res) => {
          const created = await accounts.createStaff(currentStaff(res), validated(req, createStaffBody), 'create_staff');
          res.status(201).json({ success: true, staff: staffView(created) });
        },
      ],
    },
    {
      method: 'get',
      path: '/admin/staff',
      access: 'super_admin',
      handlers: [
        async (_req, res) => {
          res.json((await accounts.listStaff()).map(staffView));
        },
      ],
    },
    {
      method: 'post',
      path: '/admin/staff',
      access: 'super_admin',
      handlers: [
        validate(staffManagementCreateBody),
        async (req, res) => {
          const created = await accounts.createStaff(currentStaff(res), validated(req, staffManagementCreateBody), 'staff_management');
          res.status(201).json({ success: true, staff: staffView(created) });
        },
      ],
    },
    {
      method: 'patch',
      path: '/admin/staff/:id/password',
      access: 'super_admin',
      handlers: [
        byId,
        validate(staffPasswordBody),
        async (req, res) => {
          const actor = currentStaff(res);
          const { id } = validated(req, staffIdParams, 'params');
          const { epoch } = await accounts.changePassword(actor, id, validated(req, staffPasswordBody).newPassword);
          // other sessions of the account end; the one that made the change carries on
          if (id === actor.id) renewStaffSessionEpoch(req, epoch);
          res.json({ success: true });
        },
      ],
    },
    {
      method: 'patch',
      path: '/admin/staff/:id/super-admin',
      access: 'super_admin',
      handlers: [
        byId,
        validate(superAdminBody),
        async (req, res) => {
          const { isSuperAdmin } = validated(req, superAdminBody);
          await accounts.setSuperAdmin(currentStaff(res), validated(req, staffIdParams, 'params').id, isSuperAdmin);
          res.json({ success: true, isSuperAdmin });
        },
      ],
    },
    {
      method: 'delete',
      path: '/admin/staff/:id',
      access: 'super_admin',
      handlers: [
        byId,
        async (req, res) => {
          await accounts.removeStaff(currentStaff(res), validated(req, staffIdParams, 'params').id);
          res.json({ success: true });
        },
      ],
    },
  ];
}
