import { planWebProcesses } from './web-processes';

const server = { DATABASE_URL: 'postgres://db/gk', sandbox: false, SERVICES: ['web', 'bot', 'jobs'] as ('web' | 'bot' | 'jobs')[] };

describe('planWebProcesses', () => {
  it('runs the asked number of processes on a PostgreSQL server with real Discord', () => {
    expect(planWebProcesses({ ...server, WEB_CONCURRENCY: 1 }, 8)).toEqual({ count: 1 });
    expect(planWebProcesses({ ...server, WEB_CONCURRENCY: 3 }, 8)).toEqual({ count: 3 });
  });

  it('reads auto as one process per CPU', () => {
    expect(planWebProcesses({ ...server, WEB_CONCURRENCY: 'auto' }, 2)).toEqual({ count: 2 });
    expect(planWebProcesses({ ...server, WEB_CONCURRENCY: 'auto' }, 1)).toEqual({ count: 1 });
  });

  it.each([
    ['the embedded database', { DATABASE_URL: undefined }, /embedded database serves one process \(set DATABASE_URL/],
    ['sandbox mode', { sandbox: true }, /sandbox mode runs its Discord emulator in one process/],
    ['no web role', { SERVICES: ['bot' as const] }, /does not serve the web role \(SERVICES\)/],
  ])('runs one process with one warning naming WEB_CONCURRENCY on %s', (_case, change, reason) => {
    const plan = planWebProcesses({ ...server, ...change, WEB_CONCURRENCY: 4 }, 8);
    expect(plan.count).toBe(1);
    expect(plan.warning).toMatch(/^WEB_CONCURRENCY=4 ignored, running 1 process: /);
    expect(plan.warning).toMatch(reason);
    // auto means "what fits": no warning
    expect(planWebProcesses({ ...server, ...change, WEB_CONCURRENCY: 'auto' }, 8)).toEqual({ count: 1 });
  });
});
