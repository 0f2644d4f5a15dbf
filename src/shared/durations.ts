/**
 * Lengths of time both the web pages and the server count in milliseconds, and the staff and
 * appeal sessions' lifetime (docs/behaviour.md, "Staff, roles and sessions" and "Limits and
 * constants"). Pure TypeScript: no DOM, no Node APIs, no imports.
 */

export const MINUTE_MS = 60 * 1000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** A staff sign-in and an appeal sign-in last at most this many days. */
export const SESSION_MAX_AGE_DAYS = 7;
export const SESSION_MAX_AGE_MS = SESSION_MAX_AGE_DAYS * DAY_MS;
