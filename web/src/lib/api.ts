import type { SWRConfiguration } from 'swr';

/** A non-OK response. `message` is `${status}: ${body text or statusText}`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    /** The raw response body text ('' when empty). */
    readonly bodyText: string,
    statusText: string,
  ) {
    super(`${status}: ${bodyText || statusText}`);
  }
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Calls the API with the session cookie. `body` (if given) is sent as JSON; state-changing
 * requests always carry `Content-Type: application/json`, which the server requires.
 * Resolves with the parsed JSON body (or the text, or undefined when empty); rejects with
 * ApiError on a non-OK status and with the fetch TypeError on a network failure.
 */
export async function apiRequest<T = unknown>(method: HttpMethod, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (method !== 'GET') headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'include',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new ApiError(response.status, text, response.statusText);
  return parseBody(text) as T;
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** SWR fetcher: the key is the API path, fetched with GET. */
export function fetcher<T = unknown>(path: string): Promise<T> {
  return apiRequest<T>('GET', path);
}

/**
 * No retry, no refetch on focus, reconnect or interval, and data never goes stale
 * (a key already in the cache is not refetched on mount). Call `mutate(key)` to refresh.
 */
export const swrConfig: SWRConfiguration = {
  fetcher,
  shouldRetryOnError: false,
  errorRetryCount: 0,
  revalidateOnFocus: false,
  revalidateOnReconnect: false,
  revalidateIfStale: false,
  refreshInterval: 0,
};

/**
 * The human-readable message of a failed call, for toasts: the server's `{error}` field when the
 * body is the JSON error model, otherwise `fallback`.
 */
export function apiErrorMessage(error: unknown, fallback: string): string {
  const bodyText = error instanceof ApiError ? error.bodyText : bodyFromMessage(error);
  if (!bodyText) return fallback;
  try {
    const parsed = JSON.parse(bodyText) as unknown;
    if (parsed && typeof parsed === 'object' && 'error' in parsed && typeof parsed.error === 'string' && parsed.error) {
      return parsed.error;
    }
  } catch {
    // Not the JSON error model: fall through.
  }
  return fallback;
}

function bodyFromMessage(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : undefined;
  return message?.match(/^\d{3}: ([\s\S]*)$/)?.[1];
}

/** True for an ApiError (or an error message) carrying the given HTTP status. */
export function isApiStatus(error: unknown, status: number): boolean {
  if (error instanceof ApiError) return error.status === status;
  return error instanceof Error && error.message.startsWith(`${status}: `);
}
