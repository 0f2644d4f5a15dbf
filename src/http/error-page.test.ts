import type { Request } from 'express';
import { errorPage, isPageNavigation } from './error-page';
import { waitInWords } from './middleware/rate-limit';

/** A request as isPageNavigation reads it: its URL, its headers, and Express's content negotiation. */
function fakeRequest(url: string, headers: Record<string, string>): Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    originalUrl: url,
    get: (name: string) => lower[name.toLowerCase()],
    accepts: (types: string[]) => {
      const accept = lower.accept ?? '';
      return accept.includes('text/html') && !accept.startsWith('application/json') ? 'html' : types[0];
    },
  } as unknown as Request;
}

describe('waitInWords', () => {
  it.each([
    [1, '1 second'],
    [8, '8 seconds'],
    [60, '1 minute'],
    [61, '1 minute 1 second'],
    [125, '2 minutes 5 seconds'],
    [600, '10 minutes'],
  ])('%i s → %s', (seconds, words) => {
    expect(waitInWords(seconds)).toBe(words);
  });
});

describe('isPageNavigation', () => {
  const html = 'text/html,application/xhtml+xml,*/*;q=0.8';
  it.each([
    ['/oauth/callback?code=a', { 'Sec-Fetch-Mode': 'navigate', Accept: html }, true],
    ['/oauth/start', { Accept: html }, true],
    ['/oauth/start', { 'Sec-Fetch-Mode': 'cors', Accept: html }, false],
    ['/oauth/start', {}, false],
    ['/api/consent/token', { 'Sec-Fetch-Mode': 'navigate', Accept: html }, false],
    ['/api?x=1', { Accept: html }, false],
    ['/apiary', { Accept: html }, true],
  ])('%s %j → %s', (url, headers, expected) => {
    expect(isPageNavigation(fakeRequest(url, headers))).toBe(expected);
  });
});

describe('errorPage', () => {
  it('escapes the message, and with a wait reloads itself after exactly that long', () => {
    const page = errorPage(429, 'Too many <b>attempts</b>: please try again in 8 seconds', 8);
    expect(page).toContain('<meta http-equiv="refresh" content="8">');
    expect(page).toContain('Too many &lt;b&gt;attempts&lt;/b&gt;');
    expect(page).toContain('This page tries again by itself in 8 seconds.');
    expect(page).not.toContain('<script');
  });
  it('without a wait offers the way back and does not reload', () => {
    const page = errorPage(400, 'Malformed URL');
    expect(page).toContain('This address is not valid');
    expect(page).toContain('<a href="/">Back to the start</a>');
    expect(page).not.toContain('http-equiv="refresh"');
  });
});
