import type { Request } from 'express';
import { escapeHtml, htmlPage } from './html-page';
import { waitInWords } from './middleware/rate-limit';

/**
 * Whether a request is a browser opening a page (a link, the address bar, Discord's redirect
 * to /oauth/callback): it should see a page, not `{"error": …}`. Never an /api call, which
 * always answers JSON; otherwise a browser's own word (Sec-Fetch-Mode: navigate), or for
 * one that sends none, an Accept header that prefers HTML to JSON.
 */
export function isPageNavigation(req: Request): boolean {
  if (req.originalUrl === '/api' || req.originalUrl.startsWith('/api/') || req.originalUrl.startsWith('/api?')) return false;
  const mode = req.get('sec-fetch-mode');
  if (mode) return mode === 'navigate';
  return req.accepts(['json', 'html']) === 'html';
}

const HEADINGS: Record<number, string> = {
  400: 'This address is not valid',
  401: 'Sign-in needed',
  403: 'Not allowed',
  404: 'Page not found',
  413: 'Too much to send',
  429: 'Please wait a moment',
  503: 'Briefly unavailable',
};

/**
 * The page a navigation gets for an error: the message the API would have given, in the
 * product's card. With `retryAfterSeconds` (a 429, a 503) it says the wait and reloads the
 * same address by itself after exactly that long (a meta refresh: the CSP allows no inline
 * script); otherwise it offers the way back to the start.
 */
export function errorPage(status: number, message: string, retryAfterSeconds?: number): string {
  const heading = HEADINGS[status] ?? (status >= 500 ? 'Something went wrong' : 'This request could not be completed');
  const text = `<p>${escapeHtml(message)}</p>`;
  if (retryAfterSeconds !== undefined) {
    return htmlPage(
      escapeHtml(heading),
      `<h1>${escapeHtml(heading)}</h1>${text}<p role="status">This page tries again by itself in ${waitInWords(retryAfterSeconds)}.</p>`,
      `<meta http-equiv="refresh" content="${retryAfterSeconds}">`,
    );
  }
  return htmlPage(escapeHtml(heading), `<h1>${escapeHtml(heading)}</h1>${text}<p><a href="/">Back to the start</a></p>`);
}
