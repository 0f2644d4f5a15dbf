/**
 * The two small server-rendered pages of a sign-in Discord is slow to finish. No script
 * (the CSP allows none inline): the waiting page reloads itself with a meta refresh,
 * and the retry page is a plain GET form.
 */

/** Seconds between two checks of a sign-in still being finished. */
export const FINISHING_REFRESH_SECONDS = 2;

const STYLE = `body{font-family:system-ui,sans-serif;background:#0f172a;color:#e2e8f0;margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center}
main{max-width:28rem;padding:2rem;text-align:center}h1{font-size:1.5rem;margin:0 0 .75rem}p{color:#94a3b8;line-height:1.5}
button{font:inherit;font-weight:600;background:#5865f2;color:#fff;border:0;border-radius:.5rem;padding:.75rem 1.5rem;cursor:pointer}
button:focus-visible{outline:2px solid #fff;outline-offset:2px}`;

function page(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">${head}<title>${title}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

/** Shown while the server keeps trying to exchange the visitor's code; reloads /oauth/finish. */
export function finishingSignInPage(): string {
  return page(
    'Finishing sign-in…',
    `<h1 role="status">Finishing sign-in…</h1><p>Discord is busy right now. Keep this page open: it continues on its own in a few seconds.</p>`,
    `<meta http-equiv="refresh" content="${FINISHING_REFRESH_SECONDS};url=/oauth/finish">`,
  );
}

/** Shown when the code could not be exchanged in time: one click starts a new sign-in, consent kept. */
export function retrySignInPage(): string {
  return page(
    'Sign-in not finished',
    `<h1>Sign-in not finished</h1><p>Discord was too busy to finish your sign-in. Your consent is kept: sign in again to complete verification.</p><form method="get" action="/oauth/start"><button type="submit">Sign in again</button></form>`,
  );
}
