import { navigateToUrl } from '@/lib/navigation';
import type { VerificationChannelLinks } from './api';

/** How long the page waits for the Discord app to take over before opening the web client instead. */
export const APP_FALLBACK_DELAY_MS = 1_500;

/**
 * Opens the verification channel in the Discord app when one is installed, else in the browser:
 * navigates to the discord:// link, and if the page is still in front after a moment (no app
 * took the link), goes to the web link. With `preferWeb` (sandbox: the web link is the emulator's
 * http page) or no app link, it goes to the web link at once.
 */
export function openVerificationChannel(links: VerificationChannelLinks, { preferWeb = false }: { preferWeb?: boolean } = {}): void {
  const { appUrl, webUrl } = links;
  if (!appUrl || preferWeb) {
    if (webUrl) navigateToUrl(webUrl);
    else if (appUrl) navigateToUrl(appUrl);
    return;
  }
  if (!webUrl) {
    navigateToUrl(appUrl);
    return;
  }

  let appTookOver = false;
  const onLeave = () => {
    appTookOver = true;
  };
  const onVisibility = () => {
    if (document.visibilityState === 'hidden') appTookOver = true;
  };
  window.addEventListener('blur', onLeave);
  window.addEventListener('pagehide', onLeave);
  document.addEventListener('visibilitychange', onVisibility);

  navigateToUrl(appUrl);

  setTimeout(() => {
    window.removeEventListener('blur', onLeave);
    window.removeEventListener('pagehide', onLeave);
    document.removeEventListener('visibilitychange', onVisibility);
    if (!appTookOver) navigateToUrl(webUrl);
  }, APP_FALLBACK_DELAY_MS);
}
