import type { FingerprintData } from '../../../../src/shared/fingerprint';
import { apiRequest } from '@/lib/api';

export interface ConsentTokenResponse {
  token: string;
}

export interface ConsentPayload {
  consent: true;
  token: string;
  fingerprintData: FingerprintData;
  fingerprintHash: string;
}

/** GET /api/consent/token: a single-use token bound to this visitor's session. */
export async function fetchConsentToken(): Promise<string> {
  const { token } = await apiRequest<ConsentTokenResponse>('GET', '/api/consent/token');
  if (typeof token !== 'string' || token === '') throw new Error('The server sent no consent token');
  return token;
}

/** POST /api/consent. */
export function recordConsent(payload: ConsentPayload): Promise<unknown> {
  return apiRequest('POST', '/api/consent', payload);
}

/** Where the browser goes after consent: the Discord sign-in redirect (a full-page navigation). */
export const OAUTH_START_PATH = '/oauth/start';
