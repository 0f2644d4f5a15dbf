import type { Logger } from './logger';

/** How the unhandled-rejection line begins, for readers of the log (the drills). */
export const UNHANDLED_REJECTION_MESSAGE = 'unhandled promise rejection (a bug)';

/**
 * What the process does with an error nobody handled.
 *
 * - A promise that fails with nobody waiting for it is a bug, but not one that leaves the
 *   process broken: it is logged at error level, with its stack, and the process keeps
 *   serving. Node's default would end the process, and with it every visitor's request
 *   in flight, over one forgotten `.catch` on a path that runs only when, say, the
 *   database drops its connections (drill 3 must survive exactly that).
 * - An exception thrown with nobody to catch it can leave any state half-changed: it is
 *   logged at fatal level and Node ends the process as usual (exit code 1), for the
 *   supervisor to restart it. `uncaughtExceptionMonitor` only watches; Node still exits.
 *
 * The log line carries the error's message and stack, never a request (so no address or
 * cookie can reach it through here).
 */
export function guardProcess(logger: Logger): void {
  process.on('unhandledRejection', (reason: unknown) => {
    logger.error({ err: reason }, `${UNHANDLED_REJECTION_MESSAGE}: logged, the process keeps serving`);
  });
  process.on('uncaughtExceptionMonitor', (error: Error, origin: string) => {
    logger.fatal({ err: error, origin }, 'uncaught exception: the process exits');
  });
}
