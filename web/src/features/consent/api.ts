import type { FingerprintData } from '@shared/fingerprint';
import { apiRequest } from '@/lib/api';

export interface ConsentTokenResponse {
  token: string;
}

export interface ConsentPayload {
  consent: true;
  token: string;
  fingerprintData: FingerprintData;
  fingerprintHash: string;
  /** the page's copy of the browser token, when it has one */
  browserToken?: string;
}

export interface ConsentResponse {
  success: boolean;
  /** the browser token the server set as a cookie, for the page's own copy */
  browserToken?: string;
}

/** GET /api/consent/token: a single-use token bound to this visitor's session. */
export async function fetchConsentToken(): Promise<string> {
  const { token } = await apiRequest<ConsentTokenResponse>('GET', '/api/consent/token');
  if (typeof token !== 'string' || token === '') throw new Error('The server sent no consent token');
  return token;
}

/** POST /api/consent. */
export function recordConsent(payload: ConsentPayload): Promise<ConsentResponse> {
  return apiRequest<ConsentResponse>('POST', '/api/consent', payload);
}

/** Where the browser goes after consent: the Discord sign-in redirect (a full-page navigation). */
export const OAUTH_START_PATH = '/oauth/start';
