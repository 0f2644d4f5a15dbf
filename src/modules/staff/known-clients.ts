import type { Clock } from '../../clock';

/**
 * The known clients (a username typed from an address that signed in to it, login-throttle.ts),
 * held in memory so that the sign-in gate (sign-in-gate.ts) can let them past without a database
 * read: a browser that lost its device cookie, or signed in before device cookies existed, keeps
 * going ahead of a spray as it did. The database stays the authority: the throttle reads the known
 * client's row again once past the gate, so an entry here only decides who waits at the gate.
 *
 * Read at the first sign-in, then again at most every `refreshMs` (in the background: a sign-in
 * never waits for it), as other web processes add known clients too; a success here adds its own at
 * once. A failed read keeps the entries read before.
 */
export interface KnownClients {
  has(key: string): boolean;
  add(key: string): void;
  /** the read under way, if any: for tests */
  readonly reading: Promise<void> | null;
}

export const KNOWN_CLIENTS_REFRESH_MS = 60_000;

export function createKnownClients(options: { read: (now: Date) => Promise<string[]>; clock: Clock; refreshMs?: number }): KnownClients {
  const refreshMs = options.refreshMs ?? KNOWN_CLIENTS_REFRESH_MS;
  let keys = new Set<string>();
  let readAt: number | null = null;
  let reading: Promise<void> | null = null;
  /** successes while a read is under way: kept when its answer replaces the set */
  let addedDuringRead = new Set<string>();

  function refreshIfStale(): void {
    const now = options.clock.now().getTime();
    if (reading || (readAt !== null && now - readAt < refreshMs)) return;
    readAt = now;
    addedDuringRead = new Set();
    reading = options
      .read(new Date(now))
      .then(
        (read) => void (keys = new Set([...read, ...addedDuringRead])),
        () => {}, // the entries read before stay; the first sign-in after `refreshMs` reads again
      )
      .finally(() => (reading = null));
  }

  return {
    has(key) {
      refreshIfStale();
      return keys.has(key);
    },
    add(key) {
      keys.add(key);
      addedDuringRead.add(key);
    },
    get reading() {
      return reading;
    },
  };
}
