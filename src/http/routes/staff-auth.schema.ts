import { z } from 'zod';
import { PASSWORD_MAX_BYTES, PASSWORD_TOO_LONG } from '../../modules/staff';
import { isPasswordTooShort, PASSWORD_TOO_SHORT, USERNAME_MAX_LENGTH, USERNAME_TOO_LONG } from '../../shared/staff-account';

/** Request bodies of /api/setup-admin and /api/staff/login. */

const required = (message: string) => z.string({ error: message }).min(1, message);

/** A username as staff choose it: trimmed, 1 to USERNAME_MAX_LENGTH characters, no control characters. */
export const newUsername = (requiredMessage: string) =>
  z
    .string({ error: requiredMessage })
    .trim()
    .min(1, requiredMessage)
    .max(USERNAME_MAX_LENGTH, USERNAME_TOO_LONG)
    .regex(/^[^\p{C}]+$/u, 'Username cannot contain control characters');

/** A password being set: the server enforces the minimum length and bcrypt's 72 bytes everywhere. */
export const newPassword = (requiredMessage: string) =>
  z
    .string({ error: requiredMessage })
    .min(1, requiredMessage)
    .refine((p) => !isPasswordTooShort(p), PASSWORD_TOO_SHORT)
    .refine((p) => Buffer.byteLength(p, 'utf8') <= PASSWORD_MAX_BYTES, PASSWORD_TOO_LONG);

export const setupBody = z.object({
  setupCode: required('Setup code is required').max(100, 'Invalid setup code'),
  username: newUsername('Username is required'),
  password: newPassword('Password is required'),
});

/** Username and password are required (docs/behaviour.md#validation-and-messages). Overlong input is refused before any hashing. */
export const loginBody = z.object({
  username: required('Username is required').max(200, 'Invalid credentials'),
  password: required('Password is required').max(1024, 'Invalid credentials'),
});

/** POST /api/admin/me/password: a staff member's own password; the current one is checked by the service. */
export const ownPasswordBody = z.object({
  currentPassword: required('Current password is required').max(1024, 'Current password is incorrect'),
  newPassword: newPassword('New password is required'),
});
