import type { Router } from 'express';
import request from 'supertest';
import type { Database } from '../db/client';
import { silentLogger, type Logger } from '../logger';
import { createMemorySetupCodeStore } from '../modules/staff/setup-code';
import { startGatekeeper, type GatekeeperHandle } from '../server';
import { testServerEnv } from './gatekeeper';

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

export async function startSecurityGatekeeper(database: Database, options: { logger?: Logger; env?: Record<string, string> } = {}): Promise<GatekeeperHandle> {
  const handle = await startGatekeeper(
    testServerEnv({ TRUST_PROXY: 'loopback', ...options.env }),
    { logger: options.logger ?? silentLogger, clock: { now: () => new Date() }, database, emulatorPort: 0, setupCode: createMemorySetupCodeStore(SETUP_CODE), bcryptCost: 4 },
  );
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
  const setup = await request(handle.url).post('/api/setup-admin').send({ setupCode: SETUP_CODE, ...OWNER });
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
 * the background is not a write by the request being checked, so they are left out of the row hash.
 */
const SEAL_COLUMNS = ['seal_seq', 'prev_hash', 'hash'];

function rowText(table: string): string {
  return table === 'audit_log' ? `(to_jsonb(x) ${SEAL_COLUMNS.map((c) => `- '${c}'`).join(' ')})::text` : 'x::text';
}

export type TableFingerprint = Record<string, string>;

/** Row count and a hash of every row of every table, in one statement: any insert, update or delete changes it. */
export async function fingerprintTables(database: Database, tables: string[]): Promise<TableFingerprint> {
  const parts = tables.map((t) => `(select count(*) || ':' || coalesce(md5(string_agg(md5(${rowText(t)}), '' order by md5(${rowText(t)}))), '') from "${t}" x) as "${t}"`);
  const { rows } = await database.query<Record<string, string>>(`select ${parts.join(', ')}`);
  return rows[0] ?? {};
}

/** The tables whose fingerprint differs, ignoring those a route may legitimately write. */
export function changedTables(before: TableFingerprint, after: TableFingerprint, allowed: readonly string[] = []): string[] {
  return Object.keys(before).filter((t) => before[t] !== after[t] && !allowed.includes(t));
}
