import type { Router } from 'express';
import request from 'supertest';
import type { Database } from '../db/client';
import { silentLogger, type Logger } from '../logger';
import { createMemorySetupCodeStore } from '../modules/staff';
import { startGatekeeper, type GatekeeperHandle } from '../server';
import { TEST_START_OPTIONS, testServerEnv } from './gatekeeper';

/**
 * What the security suite shares: the whole product on a test database (web + bot, the
 * Discord and proxycheck emulators, TRUST_PROXY=loopback so a test picks its client
 * address with X-Forwarded-For), its route table read from the mounted routers, an owner
 * account, and a fingerprint of every table to prove a request wrote nothing.
 */

export const SETUP_CODE = 'SECURITY-SETUP-CODE';
export const OWNER = { username: 'sec-owner', password: 'sec-owner-password' };
/** The owner's usual address (login throttling treats known addresses kindly). */
export const OWNER_ADDRESS = '192.0.2.44';

export async function startSecurityGatekeeper(
  database: Database,
  options: { logger?: Logger; env?: Record<string, string> } = {},
): Promise<GatekeeperHandle> {
  const handle = await startGatekeeper(testServerEnv({ TRUST_PROXY: 'loopback', ...options.env }), {
    ...TEST_START_OPTIONS,
    logger: options.logger ?? silentLogger,
    clock: { now: () => new Date() },
    database,
    setupCode: createMemorySetupCodeStore(SETUP_CODE),
  });
  // a second server on one PostgreSQL database never leads the bot (one leader): only wait when there is a bot to wait for
  if (handle.ctx.env.SERVICES.includes('bot')) await handle.services.bot.ready;
  return handle;
}

/** The Cookie header a browser would send back after this response. */
export function cookieOf(res: { headers: Record<string, unknown> }): string {
  const setCookie = res.headers['set-cookie'];
  return (Array.isArray(setCookie) ? (setCookie as string[]) : []).map((c) => c.split(';')[0]).join('; ');
}

/** Creates the owner through /api/setup-admin (once per database) and signs in: the session cookie. */
export async function ownerCookie(handle: GatekeeperHandle): Promise<string> {
  const setup = await request(handle.url)
    .post('/api/setup-admin')
    .send({ setupCode: SETUP_CODE, ...OWNER });
  if (setup.status !== 201 && setup.status !== 409) throw new Error(`setup failed: ${setup.status} ${JSON.stringify(setup.body)}`);
  const login = await request(handle.url).post('/api/staff/login').set('X-Forwarded-For', OWNER_ADDRESS).send(OWNER);
  if (login.status !== 200) throw new Error(`owner login failed: ${login.status} ${JSON.stringify(login.body)}`);
  return cookieOf(login);
}

export interface MountedRoute {
  method: string;
  /** Express path, e.g. /api/admin/users/:discordId */
  path: string;
}

/** Every route the product mounts (API routers under /api, root routers at /), read from the routers themselves. */
export function mountedRoutes(handle: GatekeeperHandle): MountedRoute[] {
  const read = (routers: Router[], prefix: string) =>
    routers.flatMap((router) =>
      router.stack
        .filter((layer) => layer.route)
        .flatMap((layer) => {
          const route = layer.route!;
          // Express keeps the verbs on the route object; its types do not declare them
          const methods = Object.keys((route as unknown as { methods: Record<string, boolean> }).methods).filter((m) => m !== '_all');
          return methods.map((method) => ({ method: method.toUpperCase(), path: `${prefix}${String(route.path)}` }));
        }),
    );
  return [...read(handle.services.routers.api, '/api'), ...read(handle.services.routers.root, '')];
}

/** The data tables of the public schema (every table the product owns). */
export async function listTables(database: Database): Promise<string[]> {
  const { rows } = await database.query<{ name: string }>(
    "select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like '__drizzle%' order by 1",
  );
  // the audit chain's checkpoint is the verifier's bookkeeping (reading the audit page moves it), not data a request writes
  return rows.map((r) => r.name).filter((name) => name !== 'audit_chain_checkpoint');
}

/**
 * The columns the audit sealer fills after a row commits: sealing an earlier request's rows in
 * the background is not a write by the request being checked, so changes to them are not logged.
 */
const SEAL_COLUMNS = ['seal_seq', 'prev_hash', 'hash'];

export type TableFingerprint = Record<string, string>;

const watched = new WeakMap<Database, Promise<void>>();

/**
 * Row triggers on every table that log each committed write into `test_watch.write_log`: an
 * insert, a delete, or an update that changes the row (an update to the same values is not a
 * write). What a rolled-back transaction logged is rolled back with it. Reading the log is one
 * small query, where hashing every row of every table before and after each request cost the
 * fuzz test 14 of its 38 CPU-seconds. The reset between tests (`resetDatabase`) runs as a
 * replica, so triggers do not fire and the reset is not logged.
 */
function watchWrites(database: Database, tables: string[]): Promise<void> {
  let ready = watched.get(database);
  if (!ready) {
    const withoutSeal = (row: string) => `(to_jsonb(${row}) ${SEAL_COLUMNS.map((c) => `- '${c}'`).join(' ')})`;
    ready = database.exec(
      [
        'create schema if not exists test_watch',
        'create table if not exists test_watch.write_log (id bigserial primary key, table_name text not null)',
        `create or replace function test_watch.log_write() returns trigger language plpgsql as $$ begin insert into test_watch.write_log (table_name) values (tg_table_name); return null; end $$`,
        ...tables.flatMap((t) => [
          `create or replace trigger test_watch_rows after insert or delete on "${t}" for each row execute function test_watch.log_write()`,
          `create or replace trigger test_watch_updates after update on "${t}" for each row when (${t === 'audit_log' ? `${withoutSeal('old')} is distinct from ${withoutSeal('new')}` : 'old.* is distinct from new.*'}) execute function test_watch.log_write()`,
        ]),
      ].join(';\n'),
    );
    watched.set(database, ready);
  }
  return ready;
}

/** How many writes each table has had since the watch began: any committed insert, update or delete changes it. */
export async function fingerprintTables(database: Database, tables: string[]): Promise<TableFingerprint> {
  await watchWrites(database, tables);
  const { rows } = await database.query<{ name: string; writes: string }>(
    'select table_name as name, count(*)::text as writes from test_watch.write_log group by 1',
  );
  const writes = new Map(rows.map((r) => [r.name, r.writes]));
  return Object.fromEntries(tables.map((t) => [t, writes.get(t) ?? '0']));
}

/** The tables whose fingerprint differs, ignoring those a route may legitimately write. */
export function changedTables(before: TableFingerprint, after: TableFingerprint, allowed: readonly string[] = []): string[] {
  return Object.keys(before).filter((t) => before[t] !== after[t] && !allowed.includes(t));
}
