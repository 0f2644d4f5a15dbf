import type { Clock } from '../../clock';
import { resolveClientIp } from '../../modules/network';
import {
  DEVICE_COOKIE,
  DEVICE_COOKIE_MAX_AGE_MS,
  deviceCookieFrom,
  type StaffAccountsService,
  type StaffLoginService,
  throttledError,
} from '../../modules/staff';
import {
  currentStaff,
  endStaffSession,
  renewStaffSessionEpoch,
  startStaffSession,
  type StaffSessionGuard,
} from '../middleware/staff-session';
import { validate } from '../middleware/validate';
import { loginBody, ownPasswordBody } from './staff-auth.schema';
import { validated, type StaffRoute } from './staff-route-table';

export const INVALID_CREDENTIALS = 'Invalid credentials';

/** Staff sign-in, sign-out, the session probe the dashboard starts with, and changing one's own password. */
export function staffAuthRoutes(deps: {
  login: StaffLoginService;
  accounts: StaffAccountsService;
  guard: StaffSessionGuard;
  clock: Clock;
  /** Secure cookies (served over https) */
  secureCookies: boolean;
}): StaffRoute[] {
  return [
    {
      method: 'post',
      path: '/staff/login',
      access: 'public',
      handlers: [
        validate(loginBody),
        async (req, res) => {
          const { username, password } = validated(req, loginBody);
          const result = await deps.login.login({
            username,
            password,
            clientAddress: resolveClientIp(req) ?? 'unknown',
            deviceCookie: deviceCookieFrom(req.headers.cookie),
          });
          if (result.outcome === 'throttled') throw throttledError(result.scope, result.retryAfterMs);
          if (result.outcome === 'invalid') {
            res.status(401).json({ success: false, error: INVALID_CREDENTIALS, code: 'invalid_credentials' });
            return;
          }
          startStaffSession(req, result.staff, deps.clock.now());
          // this browser is a known device of the account from now on (device-cookie.ts); only sign-in reads it
          res.cookie(DEVICE_COOKIE, result.deviceCookie, {
            httpOnly: true,
            secure: deps.secureCookies,
            sameSite: 'strict',
            path: '/api/staff',
            maxAge: DEVICE_COOKIE_MAX_AGE_MS,
          });
          res.json({ success: true });
        },
      ],
    },
    {
      method: 'post',
      path: '/staff/logout',
      access: 'public',
      handlers: [
        async (req, res) => {
          const staff = await deps.guard.resolve(req);
          if (staff) await deps.login.logout(staff);
          endStaffSession(req);
          res.json({ success: true });
        },
      ],
    },
    {
      method: 'get',
      path: '/admin/session',
      access: 'staff',
      handlers: [
        (_req, res) => {
          const staff = currentStaff(res);
          res.json({ username: staff.username, staffId: staff.id, isSuperAdmin: staff.isSuperAdmin, isOwner: staff.isOwner });
        },
      ],
    },
    {
      method: 'post',
      path: '/admin/me/password',
      access: 'staff',
      handlers: [
        validate(ownPasswordBody),
        async (req, res) => {
          const { epoch } = await deps.accounts.changeOwnPassword(currentStaff(res), validated(req, ownPasswordBody));
          // every other session of the account has ended; the one that made the change carries on
          renewStaffSessionEpoch(req, epoch);
          res.json({ success: true });
        },
      ],
    },
  ];
}
