/**
 * Full-page browser navigations (leaving the SPA), kept in one module so tests can replace them:
 * jsdom's window.location cannot be spied on.
 */
export function navigateToUrl(url: string): void {
  window.location.assign(url);
}

export function closeWindow(): void {
  window.close();
}
