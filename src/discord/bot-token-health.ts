import { logDiscordTokenProblem } from '../operator-events';
import type { Logger } from '../logger';

/**
 * The waits between two probes of a rejected bot token: 5 s, then doubling up to 5 min.
 * One cheap GET /users/@me each, so a token left revoked for a day costs ~300 calls.
 */
export const TOKEN_PROBE_DELAYS_MS = [5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000] as const;

export interface BotTokenStatus {
  /** 'rejected': Discord answered 401 to the bot token; every Discord call of the bot waits until a probe succeeds */
  status: 'ok' | 'rejected';
  /** ISO time Discord first rejected the token */
  since: string | null;
  /** ISO time of the next probe while rejected */
  nextProbeAt: string | null;
  /** what the owner should do, while rejected */
  fix: string | null;
}

export const TOKEN_REJECTED_MESSAGE = 'Discord rejected the bot token (401 Unauthorized): all Discord work is paused and nothing is lost.';
export const TOKEN_REJECTED_FIX =
  'Discord Developer Portal → your application → Bot → Reset Token, put the new token in DISCORD_BOT_TOKEN and restart. Work resumes by itself as soon as the token is accepted again.';

/** What a call made while the token is rejected fails with (no request is sent). */
export class BotTokenRejectedError extends Error {
  readonly status = 401;
  constructor() {
    super('the bot token is rejected by Discord: waiting for a working token');
    this.name = 'BotTokenRejectedError';
  }
}

/**
 * Whether Discord accepts the bot token. The REST client reports each 401 (`reject`); the
 * first one flips the state, logs one line and starts probing (`probe`: the status of one
 * GET /users/@me with the token) with backoff; the first probe answered 2xx restores it,
 * logs one line and tells the listeners (the outbox resumes).
 */
export function createBotTokenHealth(deps: {
  probe: () => Promise<number>;
  logger: Logger;
  delaysMs?: readonly number[];
  now?: () => number;
}) {
  const delays = deps.delaysMs ?? TOKEN_PROBE_DELAYS_MS;
  const now = deps.now ?? Date.now;
  let since: number | null = null;
  let nextProbeAt: number | null = null;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const restoredListeners = new Set<() => void>();

  function schedule(attempt: number): void {
    if (stopped) return;
    const delay = delays[Math.min(attempt, delays.length - 1)]!;
    nextProbeAt = now() + delay;
    timer = setTimeout(() => void probe(attempt), delay);
    timer.unref?.();
  }

  async function probe(attempt: number): Promise<void> {
    let status = 0;
    try {
      status = await deps.probe();
    } catch {
      status = 0; // Discord unreachable: try again later
    }
    if (since === null || stopped) return;
    if (status >= 200 && status < 300) {
      restore();
      return;
    }
    schedule(attempt + 1);
  }

  function restore(): void {
    if (since === null) return;
    deps.logger.info({ rejectedForMs: now() - since }, 'Discord accepts the bot token again: Discord work resumes');
    since = null;
    nextProbeAt = null;
    if (timer) clearTimeout(timer);
    timer = undefined;
    for (const listener of restoredListeners) listener();
  }

  return {
    /** Discord answered 401 to a bot-token call. */
    reject(): void {
      if (since !== null || stopped) return;
      since = now();
      logDiscordTokenProblem(deps.logger, { message: TOKEN_REJECTED_MESSAGE, fix: TOKEN_REJECTED_FIX });
      schedule(0);
    },
    /** Whether bot calls must wait. */
    get rejected(): boolean {
      return since !== null;
    },
    status(): BotTokenStatus {
      return {
        status: since === null ? 'ok' : 'rejected',
        since: since === null ? null : new Date(since).toISOString(),
        nextProbeAt: nextProbeAt === null ? null : new Date(nextProbeAt).toISOString(),
        fix: since === null ? null : TOKEN_REJECTED_FIX,
      };
    },
    onRestored(listener: () => void): () => void {
      restoredListeners.add(listener);
      return () => restoredListeners.delete(listener);
    },
    stop(): void {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

export type BotTokenHealth = ReturnType<typeof createBotTokenHealth>;
