import crypto from 'node:crypto';
import type { SignInResult } from '../../modules/verification';

/** Most sign-ins finishing at once in one process; past it a new one is refused as busy. */
const MAX_PENDING = 5_000;

/** How long a finished sign-in's result stays in the process after the exchange's own budget: the same callback again finds it. */
export const PENDING_RESULT_AFTER_EXCHANGE_MS = 60_000;

interface Entry {
  done: Promise<SignInResult>;
  result?: SignInResult;
  expiresAt: number;
  /** the sign-in's callback (state and code), hashed: the same callback again finds this job */
  callbackHash: string;
}

/**
 * Sign-ins still being finished on the server, by an unguessable id the visitor's session
 * holds, and by the hash of their callback's state and code (the same callback again joins
 * the first's job instead of exchanging the code again). The OAuth code stays inside the
 * running job (memory only): neither the session cookie nor the logs ever carry it.
 */
export function createPendingSignIns(options: { keepMs: number; now?: () => number }) {
  const now = options.now ?? (() => performance.now());
  const entries = new Map<string, Entry>();
  const byCallback = new Map<string, string>();
  /** the live entry of an id (one past its time is as good as gone; `start` sweeps them out) */
  const live = (id: string | undefined) => {
    const entry = id === undefined ? undefined : entries.get(id);
    return entry && entry.expiresAt > now() ? entry : undefined;
  };

  const sweep = () => {
    const t = now();
    for (const [id, entry] of entries) {
      if (entry.expiresAt > t) continue;
      entries.delete(id);
      if (byCallback.get(entry.callbackHash) === id) byCallback.delete(entry.callbackHash);
    }
  };

  return {
    /** Starts the job of the sign-in of this callback; null when too many are running already. */
    start(callbackHash: string, run: () => Promise<SignInResult>): string | null {
      sweep();
      if (entries.size >= MAX_PENDING) return null;
      const id = crypto.randomBytes(24).toString('base64url');
      const entry: Entry = {
        expiresAt: now() + options.keepMs,
        callbackHash,
        done: run().catch((): SignInResult => ({ kind: 'failed', reason: 'sign_in_crashed', retryable: true })),
      };
      void entry.done.then((result) => {
        entry.result = result;
      });
      entries.set(id, entry);
      byCallback.set(callbackHash, id);
      return id;
    },

    /** The id of the job started for this callback, while it is kept; null for none. */
    findByCallback(callbackHash: string): string | null {
      const id = byCallback.get(callbackHash);
      return live(id) ? id! : null;
    },

    /**
     * The job's result once it is done, 'pending' while it runs after waiting up to `waitMs`,
     * 'unknown' for an id it never had or has forgotten. A result is kept (for every check of
     * the same sign-in: a reload, a second callback) until `keepMs` after the job started.
     */
    async settle(id: string, waitMs: number): Promise<SignInResult | 'pending' | 'unknown'> {
      const entry = live(id);
      if (!entry) return 'unknown';
      if (entry.result) return entry.result;
      let timer: NodeJS.Timeout | undefined;
      const result = await Promise.race([
        entry.done,
        new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), waitMs))),
      ]);
      clearTimeout(timer);
      return result;
    },
  };
}
