export {
  BROWSER_TOKEN_COOKIE,
  BROWSER_TOKEN_MAX_AGE_MS,
  browserTokenFromCookieHeader,
  chooseBrowserToken,
  generateBrowserToken,
  hashBrowserToken,
  parseBrowserToken,
} from './browser-token';
