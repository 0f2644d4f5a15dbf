import { z } from 'zod';
import { newPassword, newUsername } from './staff-auth.schema';

/** Request shapes of the staff-management routes, with the messages of docs/behaviour.md#validation-and-messages. */

const FILL_ALL = 'Please fill in all fields';
const BOTH_REQUIRED = 'Username and password are required.';

/** POST /api/admin/create-staff (any staff; the Create Staff page). */
export const createStaffBody = z.object({
  username: newUsername(FILL_ALL),
  password: newPassword(FILL_ALL),
});

/** POST /api/admin/staff (super admin; the Staff Management card). */
export const staffManagementCreateBody = z.object({
  username: newUsername(BOTH_REQUIRED),
  password: newPassword(BOTH_REQUIRED),
});

export const staffPasswordBody = z.object({
  newPassword: newPassword('Password cannot be empty.'),
});

export const superAdminBody = z.object({
  isSuperAdmin: z.boolean({ error: 'isSuperAdmin must be true or false' }),
});

export const staffIdParams = z.object({
  id: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, 'Invalid staff id')
    .transform(Number),
});
