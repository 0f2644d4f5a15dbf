import type { BenchStore } from './engines';
import { startProduct, type ProductProcess } from './product-process';
import { mb, type FigureResult } from './results';
import { seedCommunity } from './seed-data';

/**
 * P7: `npm start` as an operator runs it — embedded PGlite, sandbox mode (the Discord
 * and proxycheck emulators in-process), web + bot + jobs — on a data folder holding
 * `members` members and as many attempts, left idle; VmRSS of the process from /proc.
 * `afterIdle` borrows the running product (P6 drives its consent page in Chromium).
 */
export async function measureIdleRss(
  store: BenchStore,
  options: { members: number; idleMs: number; afterIdle?: (url: string) => Promise<void>; report?: boolean },
): Promise<FigureResult[]> {
  const database = await store.open();
  try {
    await seedCommunity(database, { members: options.members, attempts: options.members });
  } finally {
    await database.close();
  }
  let product: ProductProcess | undefined;
  try {
    const started = Date.now();
    product = await startProduct({ store, entry: 'dist' });
    const startupMs = Date.now() - started;
    const samples: number[] = [];
    const until = Date.now() + options.idleMs;
    while (Date.now() < until) {
      samples.push(product.rssBytes());
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const idle = samples.at(-1) ?? Number.NaN;
    const peak = Math.max(...samples);
    if (options.afterIdle) await options.afterIdle(product.url);
    if (options.report === false) return [];
    return [
      {
        figure: 'P7 idle RSS, embedded mode',
        engine: 'pglite',
        value: mb(idle),
        target: '≤ 600 MB',
        pass: idle <= 600 * 1024 * 1024,
        note: `P7: ${options.members.toLocaleString('en')} members + ${options.members.toLocaleString('en')} attempts, sandbox mode, all roles; started in ${(startupMs / 1000).toFixed(1)} s; VmRSS after ${(options.idleMs / 1000).toFixed(0)} s idle ${mb(idle)}, highest sample ${mb(peak)}`,
      },
    ];
  } finally {
    await product?.stop();
  }
}
