import type { RequestHandler } from 'express';

export interface SecurityHeaderOptions {
  /** the site is served over https (PUBLIC_URL): browsers are told to keep it that way */
  https: boolean;
  /** extra origins images may come from (the sandbox's Discord emulator serves avatars over http) */
  imageOrigins?: string[];
}

/**
 * The Content-Security-Policy for everything the product serves (the web app, the API,
 * error pages). The built web app is one module script and one stylesheet from our own
 * origin, so no inline script is allowed: an injected `<script>` or `onclick=` does not run.
 * - images: our own, data: URIs, and any https origin (Discord's avatar CDN, avatar URLs
 *   staff type into Manual Entry);
 * - form-action 'self': every form posts to our own API (the OAuth hop to Discord is a
 *   page navigation, which form-action does not govern);
 * - frame-ancestors 'none': no other site may frame the dashboard (clickjacking).
 */
export function contentSecurityPolicy(options: SecurityHeaderOptions): string {
  const images = ["'self'", 'data:', 'https:', ...(options.imageOrigins ?? [])];
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    // the dialogs' scroll lock (Radix via react-remove-scroll) injects a small <style>
    // element with computed widths; style elements may be inline, style attributes may not
    "style-src-elem 'self' 'unsafe-inline'",
    `img-src ${images.join(' ')}`,
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(options.https ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}

/** Sets the CSP and the other browser-hardening headers on every response. */
export function securityHeaders(options: SecurityHeaderOptions): RequestHandler {
  const headers: Record<string, string> = {
    'Content-Security-Policy': contentSecurityPolicy(options),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
    ...(options.https ? { 'Strict-Transport-Security': 'max-age=31536000' } : {}),
  };
  return (_req, res, next) => {
    res.set(headers);
    next();
  };
}
