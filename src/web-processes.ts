import type { Env } from './env';

export interface WebProcessPlan {
  /** how many processes serve (1 = no cluster primary, the process runs the product itself) */
  count: number;
  /** why a WEB_CONCURRENCY above 1 was not honoured (printed once at start-up) */
  warning?: string;
}

/**
 * How many processes `npm start` runs (WEB_CONCURRENCY; `auto` = one per CPU). Several
 * processes need a PostgreSQL server (the embedded database is one process's, its data
 * folder is locked), real Discord (the sandbox emulator lives in one process) and the
 * web role; otherwise the product runs as one process and says why. Clamped rather than
 * refused: hosting platforms set WEB_CONCURRENCY themselves, and one process still works.
 */
export function planWebProcesses(
  env: Pick<Env, 'WEB_CONCURRENCY' | 'DATABASE_URL' | 'sandbox' | 'SERVICES'>,
  cpus: number,
): WebProcessPlan {
  const setting = env.WEB_CONCURRENCY;
  const auto = setting === 'auto';
  const requested = setting === 'auto' ? Math.max(1, Math.min(64, cpus)) : setting;
  if (requested <= 1) return { count: 1 };
  const reason = !env.DATABASE_URL
    ? 'the embedded database serves one process (set DATABASE_URL to a PostgreSQL server)'
    : env.sandbox
      ? 'sandbox mode runs its Discord emulator in one process'
      : !env.SERVICES.includes('web')
        ? 'this process does not serve the web role (SERVICES)'
        : undefined;
  if (!reason) return { count: requested };
  // `auto` asks for what fits: one process is the answer, not a surprise worth a warning
  return auto ? { count: 1 } : { count: 1, warning: `WEB_CONCURRENCY=${requested} ignored, running 1 process: ${reason}` };
}
