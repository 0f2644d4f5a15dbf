import { DiscordAPIError, HTTPError } from '@discordjs/rest';

export type FailureKind = 'permanent' | 'transient';

/**
 * Whether a failed Discord call can ever succeed. 4xx answers about the target (unknown
 * user or member, invalid OAuth token, missing permissions, bad body) are permanent;
 * 5xx, time-outs, network errors and 401 (a bot token being rotated) are retried.
 */
export function classifyDiscordError(error: unknown): { kind: FailureKind; message: string; status?: number; code?: number | string } {
  if (error instanceof DiscordAPIError) {
    const message = `${error.status} ${error.code}: ${error.message}`;
    if (error.status === 401 || error.status === 429 || error.status >= 500)
      return { kind: 'transient', message, status: error.status, code: error.code };
    return { kind: 'permanent', message, status: error.status, code: error.code };
  }
  if (error instanceof HTTPError) return { kind: 'transient', message: `${error.status}: ${error.message}`, status: error.status };
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { kind: 'transient', message };
}

/** Exponential backoff with jitter: 5 s, 10 s, 20 s … capped at 30 min. */
export function nextRetryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(5_000 * 2 ** Math.max(attempt - 1, 0), 30 * 60 * 1000);
  return Math.round(base * (0.8 + random() * 0.4));
}

/** The wait a 429 asked for (its body's `retry_after`, in seconds), in ms; null for any other failure. */
export function retryAfterMs(error: unknown): number | null {
  if (!(error instanceof DiscordAPIError) || error.status !== 429) return null;
  const seconds = (error.rawError as { retry_after?: unknown }).retry_after;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : null;
}
