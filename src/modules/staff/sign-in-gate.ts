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
