import fs from 'node:fs';
import bcrypt from 'bcryptjs';
import { performance } from 'node:perf_hooks';
import { createPasswordHasher } from './password';
import { defaultHashThreads, workerBcrypt } from './password-pool';

describe('workerBcrypt', () => {
  const runner = workerBcrypt({ threads: 1, queueLimit: 2 });
  afterAll(() => runner.close());

  it('hashes and checks on a worker thread, leaving the event loop free', async () => {
    const hasher = createPasswordHasher(10, runner);
    await hasher.hash('warm-up-pass'); // the thread's start-up is not what is measured
    const before = performance.eventLoopUtilization();
    const hash = await hasher.hash('correct horse');
    const checks = await Promise.all([hasher.verify('correct horse', hash), hasher.verify('wrong horse', hash)]);
    const busy = performance.eventLoopUtilization(before);
    expect(bcrypt.getRounds(hash)).toBe(10);
    expect(checks).toEqual([true, false]);
    // bcryptjs on this thread keeps its event loop busy nearly all the time (utilisation near 1)
    expect(busy.utilization).toBeLessThan(0.5);
  });

  it('refuses at once (429) beyond one running and two waiting', async () => {
    const settled = await Promise.allSettled(Array.from({ length: 5 }, () => runner.hash('password-x', 8)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
    expect(settled[4]).toMatchObject({ reason: { status: 429, headers: { 'Retry-After': '2' } } });
  });

  // Linux keeps a nice value per thread: the password thread's is below the event loop's priority
  (fs.existsSync('/proc/thread-self') ? it : it.skip)(
    'runs its checks at a lower priority than the event loop, so a spray yields the CPU to visitors',
    async () => {
      await runner.hash('started', 4);
      const niceOf = (task: string) =>
        Number(
          fs
            .readFileSync(`/proc/${process.pid}/task/${task}/stat`, 'utf8')
            .replace(/^.*\) /s, '')
            .split(' ')[16],
        );
      const tasks = fs.readdirSync(`/proc/${process.pid}/task`);
      const mainNice = niceOf(String(process.pid));
      // the thread's name is not set, so it is found by its nice value: at least one thread at 5 or more, the main one as it was
      expect(tasks.map(niceOf).filter((nice) => nice >= 5 && nice > mainNice).length).toBeGreaterThanOrEqual(1);
    },
  );
});

describe('defaultHashThreads', () => {
  it.each([
    [1, 1, 1],
    [2, 1, 1],
    [2, 2, 1],
    [4, 1, 3],
    [4, 2, 1],
    [8, 2, 2],
    [32, 1, 4],
    [32, 4, 1],
  ])('%d CPUs, %d web processes → %d threads each', (cpus, processes, threads) =>
    expect(defaultHashThreads(cpus, processes)).toBe(threads),
  );
});
