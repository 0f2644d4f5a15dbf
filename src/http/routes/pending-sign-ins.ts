import crypto from 'node:crypto';
import type { SignInResult } from '../../modules/verification/sign-in';

/** Most sign-ins finishing at once in one process; past it a new one is refused as busy. */
const MAX_PENDING = 5_000;

interface Entry {
  done: Promise<SignInResult>;
  result?: SignInResult;
  expiresAt: number;
}

/**
 * Sign-ins still being finished on the server, by an unguessable id the visitor's session
 * holds. The OAuth code stays inside the running job (memory only): neither the session
 * cookie nor the logs ever carry it.
 */
export function createPendingSignIns(options: { keepMs: number; now?: () => number }) {
  const now = options.now ?? (() => performance.now());
  const entries = new Map<string, Entry>();

  const sweep = () => {
    const t = now();
    for (const [id, entry] of entries) if (entry.expiresAt <= t) entries.delete(id);
  };

  return {
    /** Starts the job; null when too many are running already. */
    start(run: () => Promise<SignInResult>): string | null {
      sweep();
      if (entries.size >= MAX_PENDING) return null;
      const id = crypto.randomBytes(24).toString('base64url');
      const entry: Entry = {
        expiresAt: now() + options.keepMs,
        done: run().catch((): SignInResult => ({ kind: 'failed', reason: 'sign_in_crashed', retryable: true })),
      };
      void entry.done.then((result) => {
        entry.result = result;
      });
      entries.set(id, entry);
      return id;
    },

    /**
     * The job's result once it is done (and then forgotten: a result is handed out once),
     * 'pending' while it runs after waiting up to `waitMs`, 'unknown' for an id it never had or forgot.
     */
    async settle(id: string, waitMs: number): Promise<SignInResult | 'pending' | 'unknown'> {
      const entry = entries.get(id);
      if (!entry) return 'unknown';
      let timer: NodeJS.Timeout | undefined;
      const result = entry.result ?? (await Promise.race([entry.done, new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), waitMs)))]));
      clearTimeout(timer);
      if (result !== 'pending' && entries.get(id) === entry) entries.delete(id);
      return result;
    },
  };
}
