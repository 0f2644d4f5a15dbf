import autocannon from 'autocannon';
import bcrypt from 'bcryptjs';
import type { Database } from '../../src/db/client';
import type { BenchStore } from './engines';
import { startProduct, type ProductProcess } from './product-process';
import { ms, percentile, type FigureResult } from './results';
import { createSiteTarget, send } from './visitor-client';

export const BENCH_STAFF = { username: 'bench-owner', password: 'bench-owner-password' };

/** A staff owner to sign in with (bcrypt cost 10: the server checks whatever cost the hash names). */
export async function seedBenchStaff(database: Database): Promise<void> {
  const hash = await bcrypt.hash(BENCH_STAFF.password, 10);
  await database.query('insert into staff (username, password_hash, is_super_admin, is_owner) values ($1, $2, true, true)', [
    BENCH_STAFF.username,
    hash,
  ]);
}

/** Signs in over HTTP and returns the Cookie header of the staff session. */
export async function staffCookie(url: string): Promise<string> {
  const target = createSiteTarget(url, 1);
  try {
    const answer = await send(target, 'POST', '/api/staff/login', {
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.250.0.1' },
      body: JSON.stringify(BENCH_STAFF),
    });
    if (answer.status !== 200) throw new Error(`staff login failed: ${answer.status} ${answer.body}`);
    return (answer.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
  } finally {
    target.agent.destroy();
  }
}

interface QueryCase {
  name: string;
  path: string;
}

const PAGE = 48; // the dashboard's page size (web/src/features/members/api/members.ts)

/** The dashboard's calls: first pages of every filter, a later page, username and Discord ID substring searches. */
function dashboardCases(nextCursor: string | null): QueryCase[] {
  const list = (query: string) => `/api/admin/users?${query}&limit=${PAGE}`;
  const cases: QueryCase[] = [
    { name: 'all', path: list('filter=all') },
    { name: 'verified', path: list('filter=verified') },
    { name: 'unverified', path: list('filter=unverified') },
    { name: 'certain_alts', path: list('filter=certain_alts') },
    { name: 'search "ninja"', path: list('search=ninja&filter=all') },
    { name: 'search "foxwizard"', path: list('search=foxwizard&filter=all') },
    { name: 'search "rose42"', path: list('search=rose42&filter=verified') },
    { name: 'search "qqq" (no match)', path: list('search=qqq&filter=all') },
    { name: 'search id "40990"', path: list('search=40990&filter=all') },
  ];
  if (nextCursor) cases.splice(1, 0, { name: 'all, page 2', path: list(`filter=all&cursor=${encodeURIComponent(nextCursor)}`) });
  return cases;
}

/** `amount` requests on `connections` keep-alive connections; every response time is kept (autocannon's summary has no p95). */
async function hammer(
  url: string,
  path: string,
  cookie: string,
  options: { connections: number; amount: number },
): Promise<{ times: number[]; non2xx: number }> {
  const times: number[] = [];
  const instance = autocannon({
    url: `${url}${path}`,
    connections: options.connections,
    amount: options.amount,
    headers: { cookie },
    timeout: 30,
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
    if (status === 200) times.push(responseTime);
  });
  const result = await instance;
  return { times, non2xx: result.non2xx + result.errors + result.timeouts };
}

/**
 * P3: the dashboard list and its searches over real HTTP with a staff session, on a
 * database of `members` members and `joinsSinceVacuum` more added one by one after its
 * VACUUM (as between two runs of the hourly job), `connections` staff browsers at once.
 */
export async function measureDashboard(
  store: BenchStore,
  options: { members: number; joinsSinceVacuum?: number; connections: number; amount: number },
): Promise<FigureResult> {
  let product: ProductProcess | undefined;
  try {
    product = await startProduct({ store, env: { TRUST_PROXY: 'loopback', SERVICES: 'web' } });
    const cookie = await staffCookie(product.url);
    const first = createSiteTarget(product.url, 1);
    const page = await send(first, 'GET', `/api/admin/users?filter=all&limit=${PAGE}`, { headers: { cookie } });
    first.agent.destroy();
    if (page.status !== 200) throw new Error(`P3: the list answered ${page.status}: ${page.body.slice(0, 200)}`);
    const { nextCursor } = JSON.parse(page.body) as { nextCursor: string | null };

    const rows: string[] = [];
    let worst = 0;
    let worstName = '';
    let failures = 0;
    for (const c of dashboardCases(nextCursor)) {
      await hammer(product.url, c.path, cookie, { connections: options.connections, amount: Math.max(20, Math.floor(options.amount / 5)) }); // warm
      const { times, non2xx } = await hammer(product.url, c.path, cookie, options);
      failures += non2xx;
      const p95 = percentile(times, 95);
      rows.push(`${c.name} ${p95.toFixed(1)}`);
      if (p95 > worst) {
        worst = p95;
        worstName = c.name;
      }
    }
    return {
      figure: 'P3 dashboard list + search',
      engine: store.kind,
      value: `${ms(worst)} p95 (worst)`,
      target: '≤ 50 ms p95',
      pass: worst <= 50 && failures === 0,
      note: `P3 ${store.kind}: ${options.members.toLocaleString('en')} members${options.joinsSinceVacuum ? ` + ${options.joinsSinceVacuum.toLocaleString('en')} who joined since the last VACUUM` : ''}, ${options.connections} connections, ${options.amount} requests per query, page size ${PAGE}, total count included; p95 ms by query: ${rows.join(', ')}; worst: ${worstName}${failures ? `; ${failures} non-200 answers` : ''}`,
    };
  } finally {
    await product?.stop();
  }
}
