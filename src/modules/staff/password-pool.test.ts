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
});

describe('defaultHashThreads', () => {
  it.each([
    [1, 1],
    [2, 1],
    [4, 3],
    [32, 4],
  ])('%d CPUs → %d threads', (cpus, threads) => expect(defaultHashThreads(cpus)).toBe(threads));
});
