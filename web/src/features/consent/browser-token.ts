/**
 * The page's copy of the browser token (docs/behaviour.md#alt-detection): the server sets
 * it at consent as an HttpOnly cookie and answers its value, which the page keeps in local
 * storage and sends with the next consent, so that clearing either one does not lose it.
 * Storage can be unavailable (blocked, private modes): then the cookie alone carries it.
 */
const STORAGE_KEY = 'gk_browser';
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

export function readStoredBrowserToken(): string | undefined {
  try {
    const value = window.localStorage.getItem(STORAGE_KEY);
    return value !== null && TOKEN_FORMAT.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function storeBrowserToken(value: unknown): void {
  if (typeof value !== 'string' || !TOKEN_FORMAT.test(value)) return;
  try {
    window.localStorage.setItem(STORAGE_KEY, value);
  } catch {
    // storage blocked: the cookie still carries the token
  }
}
