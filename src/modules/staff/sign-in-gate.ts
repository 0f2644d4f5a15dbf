import { createBoundedQueue, type BoundedQueue } from './bounded-queue';

/**
 * The gate in front of sign-ins from unknown devices (no valid device cookie, device-cookie.ts).
 *
 * A password spray from many addresses is made of such sign-ins. Each one reads and writes the
 * login throttle, looks up an account, checks a password and writes the audit log, all on the
 * staff's own small lane to the database (db/staff-lane.ts), the lane the owner signs in on.
 * Unchecked, a spray fills that lane and the owner's sign-in waits behind it. Through the gate
 * at most `concurrency` unknown sign-ins are under way per web process and at most `queueLimit`
 * wait, in memory, before touching the database; beyond that the answer is a 429 at once whose
 * text and Retry-After say the same wait (bounded-queue.ts). Sign-ins from a known device (a valid
 * device cookie) or a known client (known-clients.ts) skip it.
 */
export interface SignInGateSize {
  concurrency: number;
  queueLimit: number;
}

/**
 * Per web process. Four under way is more than the password threads can check at once (one or two
 * on a small machine, plus two waiting each), so honest sign-ins from a new device rarely wait; and
 * four sign-ins hold at most four of the database's statements at a time.
 */
export const SIGN_IN_GATE: SignInGateSize = { concurrency: 4, queueLimit: 8 };

export function createSignInGate(size: SignInGateSize = SIGN_IN_GATE): BoundedQueue {
  return createBoundedQueue(size);
}

/**
 * A flood of unknown sign-ins: `refusals` of them refused as busy (by the gate, or by the password
 * threads' queue behind it) within `windowMs` pause every unknown device's sign-in for `pauseMs`.
 * The gate alone keeps a spray's password checks running back to back as long as it lasts, a
 * core's worth taken from the visitors; no one signs in by the dozen from new devices at once, so
 * the overflow is the spray's own signature. Per web process, in memory: each process pauses on
 * the flood it sees. Known devices and known clients never meet the pause.
 */
export interface FloodRule {
  refusals: number;
  windowMs: number;
  pauseMs: number;
}

/** Twenty refused in a minute is a flood well beyond the gate's twelve places; the pause is the global block's length. */
export const SIGN_IN_FLOOD: FloodRule = { refusals: 20, windowMs: 60_000, pauseMs: 5 * 60_000 };

export interface FloodPause {
  /** the pause left at `now` (ms), 0 when there is none */
  pausedFor(now: number): number;
  /** counts one sign-in refused as busy; true when it starts a pause */
  refused(now: number): boolean;
}

export function createFloodPause(rule: FloodRule = SIGN_IN_FLOOD): FloodPause {
  let windowStart = -Infinity;
  let count = 0;
  let pausedUntil = -Infinity;
  return {
    pausedFor: (now) => Math.max(0, pausedUntil - now),
    refused(now) {
      if (now < pausedUntil) return false;
      if (now - windowStart >= rule.windowMs) {
        windowStart = now;
        count = 0;
      }
      count += 1;
      if (count < rule.refusals) return false;
      pausedUntil = now + rule.pauseMs;
      count = 0;
      return true;
    },
  };
}
