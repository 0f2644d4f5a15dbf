import { htmlPage } from '../html-page';

/**
 * The two small server-rendered pages of a sign-in Discord is slow to finish. No script
 * (the CSP allows none inline): the waiting page reloads itself with a meta refresh,
 * and the retry page is a plain GET form.
 */

/** Seconds between two checks of a sign-in still being finished. */
export const FINISHING_REFRESH_SECONDS = 2;

/** Shown while the server keeps trying to exchange the visitor's code; reloads /oauth/finish. */
export function finishingSignInPage(): string {
  return htmlPage(
    'Finishing sign-in…',
    `<h1 role="status">Finishing sign-in…</h1><p>Discord is busy right now. Keep this page open: it continues on its own in a few seconds.</p>`,
    `<meta http-equiv="refresh" content="${FINISHING_REFRESH_SECONDS};url=/oauth/finish">`,
  );
}

/** Shown when the code could not be exchanged in time: one click starts a new sign-in, consent kept. */
export function retrySignInPage(): string {
  return htmlPage(
    'Sign-in not finished',
    `<h1>Sign-in not finished</h1><p>Discord was too busy to finish your sign-in. Your consent is kept: sign in again to complete verification.</p><form method="get" action="/oauth/start"><button type="submit">Sign in again</button></form>`,
  );
}
