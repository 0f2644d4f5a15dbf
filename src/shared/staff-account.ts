/**
 * Limits on staff usernames and passwords. The server enforces them; the dashboard's forms
 * check them first so a person sees the problem before sending anything.
 * Pure TypeScript: no DOM, no Node APIs, no imports.
 */

export const USERNAME_MAX_LENGTH = 32;
export const USERNAME_TOO_LONG = `Username must be at most ${USERNAME_MAX_LENGTH} characters`;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_TOO_SHORT = `Password must be at least ${PASSWORD_MIN_LENGTH} characters`;
/** The hint shown under a field where a new password is chosen. */
export const PASSWORD_LENGTH_HINT = `Password must be at least ${PASSWORD_MIN_LENGTH} characters long`;

/** Characters are counted as a person counts them: an emoji or an accented letter typed as one is one. */
export function isPasswordTooShort(password: string): boolean {
  return [...password].length < PASSWORD_MIN_LENGTH;
}
