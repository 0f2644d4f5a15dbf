/** The lockdown switch: staff turn it on and off, and the raid check turns it on. */
export interface LockdownState {
  on: boolean;
  reason: string | null;
  since: string | null;
  by: string | null;
}

export const LOCKDOWN_OFF: LockdownState = { on: false, reason: null, since: null, by: null };
