import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { Forbidden, Unauthorized } from '../../errors';
import { findStaffById, type StaffAccount } from '../../modules/staff/staff.repository';
import { HOUR_MS, SESSION_MAX_AGE_MS } from '../../shared/durations';

/**
 * Staff sessions (docs/behaviour.md#staff-roles-and-sessions). The cookie-session cookie carries, under its `staff`
 * key, `{staffId, epoch, iat, seen}`; visitor keys in the same cookie are left alone.
 * Every request re-reads the account and compares the epoch, so logout, a password
 * change, a demotion or a deletion (which bump or remove it) end every copy of the
 * cookie at once. Idle timeout 12 h, absolute 7 days, both on the injected clock.
 */

export const STAFF_IDLE_TIMEOUT_MS = 12 * HOUR_MS;
export const STAFF_ABSOLUTE_TIMEOUT_MS = SESSION_MAX_AGE_MS;
/** `seen` is rewritten at most this often, so not every request re-sends the cookie. */
const SEEN_REFRESH_MS = 60 * 1000;

const sessionSchema = z.object({
  staffId: z.number().int().positive(),
  epoch: z.number().int().min(0),
  iat: z.number(),
  seen: z.number(),
});
export type StaffSessionData = z.infer<typeof sessionSchema>;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express's own augmentation point
  namespace Express {
    interface Locals {
      /** the signed-in staff account, set by requireStaff */
      staff?: StaffAccount;
    }
  }
}

export function readStaffSession(req: Request): StaffSessionData | null {
  const parsed = sessionSchema.safeParse(req.session?.staff);
  return parsed.success ? parsed.data : null;
}

export function startStaffSession(req: Request, staff: { id: number; sessionEpoch: number }, now: Date): void {
  const at = now.getTime();
  const data: StaffSessionData = { staffId: staff.id, epoch: staff.sessionEpoch, iat: at, seen: at };
  if (req.session) req.session.staff = data;
}

/** Keeps the session's age but moves it to a new epoch (the account changed its own password). */
export function renewStaffSessionEpoch(req: Request, epoch: number): void {
  const data = readStaffSession(req);
  if (data && req.session) req.session.staff = { ...data, epoch };
}

export function endStaffSession(req: Request): void {
  if (req.session && 'staff' in req.session) delete req.session.staff;
}

/** The account requireStaff admitted. */
export function currentStaff(res: Response): StaffAccount {
  const staff = res.locals.staff;
  if (!staff) throw Unauthorized();
  return staff;
}

export function createStaffSessionGuard(deps: { database: Database; clock: Clock }) {
  /** The live account behind the request's session, or null (clearing a dead session). */
  async function resolve(req: Request): Promise<StaffAccount | null> {
    const data = readStaffSession(req);
    if (!data) return null;
    const now = deps.clock.now().getTime();
    if (now - data.iat > STAFF_ABSOLUTE_TIMEOUT_MS || now - data.seen > STAFF_IDLE_TIMEOUT_MS) {
      endStaffSession(req);
      return null;
    }
    const staff = await findStaffById(deps.database.db, data.staffId);
    if (!staff || staff.sessionEpoch !== data.epoch) {
      endStaffSession(req);
      return null;
    }
    if (now - data.seen > SEEN_REFRESH_MS && req.session) req.session.staff = { ...data, seen: now };
    return staff;
  }

  const requireStaff: RequestHandler = async (req, res, next) => {
    const staff = await resolve(req);
    if (!staff) throw Unauthorized();
    res.locals.staff = staff;
    next();
  };

  /** After requireStaff: 403 unless the account is a super admin. */
  const requireSuperAdmin: RequestHandler = (_req, res, next) => {
    if (!currentStaff(res).isSuperAdmin) throw Forbidden('Super admin access required');
    next();
  };

  return { resolve, requireStaff, requireSuperAdmin };
}

export type StaffSessionGuard = ReturnType<typeof createStaffSessionGuard>;
