import type { Database } from '../../db/client';
import type { Logger } from '../../logger';
import { sealAuditLog } from './audit-sealer';

export interface AuditSealerHandle {
  /** asks for a seal soon; many asks within the debounce make one seal */
  nudge(): void;
  stop(): Promise<void>;
}

const active = new Set<AuditSealerHandle>();

/**
 * Called whenever an audit row is about to be appended: every sealer of this process seals
 * shortly after (by then the appending transaction has usually committed; a row that
 * commits later is sealed by the next nudge or the timer).
 */
export function nudgeAuditSealers(): void {
  for (const sealer of active) sealer.nudge();
}

/**
 * Seals the audit log after appends (debounced) and, with `intervalMs`, on a timer that
 * catches rows whose transaction committed after the last nudge's seal or whose process
 * died before sealing them.
 */
export function startAuditSealer(deps: {
  database: Database;
  logger: Logger;
  debounceMs?: number;
  intervalMs?: number;
}): AuditSealerHandle {
  // a tenth of a second: appends that close together make one sealing transaction (six round trips on the
  // database's one connection, in PGlite's case); at 20 ms a busy verification flow sealed after almost every visitor
  const debounceMs = deps.debounceMs ?? 100;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const run = () => {
    timer = undefined;
    if (running) {
      again = true;
      return;
    }
    running = sealAuditLog(deps.database.db)
      .then((result) => {
        // another process is sealing, or a backlog is left: look again shortly
        if (result.busy || result.more) again = true;
      })
      .catch((error: unknown) => {
        deps.logger.warn({ err: error }, 'could not seal the audit log; retrying on the next append or timer');
      })
      .finally(() => {
        running = undefined;
        if (again && !stopped) {
          again = false;
          handle.nudge();
        }
      });
  };

  const handle: AuditSealerHandle = {
    nudge() {
      if (stopped || timer) return;
      timer = setTimeout(run, debounceMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      active.delete(handle);
      if (timer) clearTimeout(timer);
      if (interval) clearInterval(interval);
      await running;
      // a graceful stop leaves nothing pending
      await sealAuditLog(deps.database.db).catch((error: unknown) =>
        deps.logger.warn({ err: error }, 'could not seal the audit log before stopping'),
      );
    },
  };
  const interval = deps.intervalMs ? setInterval(() => handle.nudge(), deps.intervalMs) : undefined;
  interval?.unref();
  active.add(handle);
  handle.nudge();
  return handle;
}
