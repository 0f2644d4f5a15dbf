/**
 * Lengths of staff-written text that the web pages cap and the server refuses beyond
 * (docs/behaviour.md, "Alt detection" and "Validation and messages"). Pure TypeScript: no DOM,
 * no Node APIs, no imports.
 */

/** The optional reason staff give when they mark an alt link "Not the same person", in characters. */
export const DISMISS_REASON_MAX = 500;
/** A staff note on a member, in characters (after trimming). */
export const STAFF_NOTE_MAX = 5000;
