/**
 * Business constants (docs/behaviour.md#limits-and-constants) that both the web pages and the server state or enforce.
 * Pure TypeScript: no DOM, no Node APIs, no imports.
 */

/** Default data retention when the server has not told us otherwise (GET /api/config → dataRetentionDays). */
export const DEFAULT_RETENTION_DAYS = 30;

/** Minimum age to use the service, and the higher minimum inside the EU. */
export const MINIMUM_AGE = 13;
export const MINIMUM_AGE_EU = 16;

/** Privacy requests are answered within this many days. */
export const PRIVACY_REQUEST_RESPONSE_DAYS = 30;

/** Notice given before material changes to the terms take effect. */
export const TERMS_CHANGE_NOTICE_DAYS = 30;

/** Liability cap stated in the Terms of Service, in US dollars. */
export const LIABILITY_CAP_USD = 100;

/** "Last updated" date printed on the Privacy Policy and Terms of Service. */
export const POLICY_LAST_UPDATED = 'November 23, 2026';

/** The only channels a Limited Access (VPN) member can see. */
export const LIMITED_ACCESS_CHANNELS = ['raffle-confirmation-chat', 'stream-general-chat'] as const;
