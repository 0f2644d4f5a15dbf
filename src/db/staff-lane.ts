import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Staff's own way to the database. A crowd of visitors (hundreds at once) fills the PostgreSQL
 * pool and queues on the embedded engine's one connection; staff signing in or opening the
 * dashboard during it must not wait behind them. Work started inside `inStaffLane` (the staff
 * and admin routes) runs on a small pool of its own on PostgreSQL (client.ts) and goes ahead of
 * waiting visitor statements on the embedded engine (pglite-worker.ts).
 */
const lane = new AsyncLocalStorage<true>();

/** Runs `work`, and everything it awaits, in the staff lane. */
export function inStaffLane<T>(work: () => T): T {
  return lane.run(true, work);
}

/** True inside `inStaffLane` (a staff or admin request). */
export function isStaffLane(): boolean {
  return lane.getStore() === true;
}

/** Connections of the staff lane's own pool on PostgreSQL, per process: sign-in and the dashboard are a few people. */
export const STAFF_LANE_CONNECTIONS = 2;
