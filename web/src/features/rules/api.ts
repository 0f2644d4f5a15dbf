import { apiRequest } from '@/lib/api';

/** POST /api/rules/confirm (no body): marks the session's member as having agreed to the rules. */
export function confirmRules(): Promise<unknown> {
  return apiRequest('POST', '/api/rules/confirm');
}
