import bcrypt from 'bcryptjs';
import type { Router } from 'express';
import request from 'supertest';
import type { Database, Executor } from '../db/client';
import { staff } from '../db/schema';
import { createAdmissionService } from '../modules/admission';
import { createOutboxRepository, type OutboxPort } from '../modules/outbox';
import { settingsFor } from '../modules/settings';
import {
  type LoginThrottlePolicy,
  type StaffAccount,
  inlineBcrypt,
  type BcryptRunner,
  type BoundedQueue,
  type FloodRule,
  createMemorySetupCodeStore,
  type SetupCodeStore,
} from '../modules/staff';
import { createTestContext } from './context';
import { buildApp } from '../http/compose';
import type { DiscordUserLookup } from '../http/routes/discord-user.router';
import { createStaffServices } from '../services';
import { createStaffRouters, createStaffRoutes, type StaffServices } from '../http/routes/staff-routes';

/** Test helpers for the staff routes: an app on a real database, seeded accounts, signed-in cookies. */

export const TEST_BCRYPT_COST = 4;
export const TEST_SETUP_CODE = 'ABCDE-FGHJK-MNPQR-STUVW';

export interface FakeDiscordUsers extends DiscordUserLookup {
  users: Map<string, { username: string; avatarUrl: string | null }>;
  /** ids whose lookup fails as if Discord were down */
  unreachable: Set<string>;
}

export function createFakeDiscordUsers(): FakeDiscordUsers {
  const users = new Map<string, { username: string; avatarUrl: string | null }>();
  const unreachable = new Set<string>();
  return {
    users,
    unreachable,
    async fetchUser(discordId) {
      if (unreachable.has(discordId)) throw new Error('connect ECONNREFUSED');
      return users.get(discordId) ?? null;
    },
  };
}

export interface StaffTestAppOptions {
  env?: Record<string, string>;
  outbox?: OutboxPort;
  setupCode?: SetupCodeStore;
  loginThrottle?: LoginThrottlePolicy;
  /** where bcrypt runs: inline by default (a thread's start-up would cost each test file more than it saves) */
  bcrypt?: BcryptRunner;
  guildNames?: StaffServices['guildNames'];
  /** routers mounted under /api before the staff routers (e.g. a probe of visitor session keys) */
  extraApi?: Router[];
  /** the gate in front of sign-ins from unknown devices, when a test needs its own */
  signInGate?: BoundedQueue;
  /** when a flood of unknown sign-ins pauses them, when a test needs a smaller rule */
  signInFlood?: FloodRule;
}

export function createStaffTestApp(database: Database, options: StaffTestAppOptions = {}) {
  // TRUST_PROXY lets a test pick its client address with X-Forwarded-For
  const { ctx, clock } = createTestContext(database, { TRUST_PROXY: 'loopback', ...options.env });
  const discordUsers = createFakeDiscordUsers();
  const repository = createOutboxRepository({ sealKey: ctx.secrets.outboxKey, now: () => clock.now() });
  const setupCode = options.setupCode ?? createMemorySetupCodeStore(TEST_SETUP_CODE);
  // a test's outbox (e.g. one that fails) takes the place of the queueing side only
  const outbox = options.outbox ? { ...repository, ...options.outbox } : repository;
  const settings = settingsFor(ctx);
  const admission = createAdmissionService({ database, clock, settings, outbox });
  const deps = createStaffServices({
    database,
    clock,
    ipHashKey: ctx.secrets.ipHashKey,
    deviceKeys: ctx.secrets.sessionKeys,
    secureCookies: false,
    signInGate: options.signInGate,
    signInFlood: options.signInFlood,
    outbox,
    setupCode,
    discordUsers,
    settings,
    guildNames: options.guildNames,
    admission,
    bcryptCost: TEST_BCRYPT_COST,
    loginThrottle: options.loginThrottle,
    bcrypt: options.bcrypt ?? inlineBcrypt(),
  });
  const routers = createStaffRouters(deps);
  const app = buildApp(ctx, { api: [...(options.extraApi ?? []), ...routers], root: [] });
  return { app, ctx, clock, deps, discordUsers, routers, routes: createStaffRoutes(deps) };
}

const hashes = new Map<string, Promise<string>>();
function testHash(password: string): Promise<string> {
  if (!hashes.has(password)) hashes.set(password, bcrypt.hash(password, TEST_BCRYPT_COST));
  return hashes.get(password)!;
}

export interface SeedAccount {
  username: string;
  password: string;
  isSuperAdmin?: boolean;
  isOwner?: boolean;
}

export async function seedStaffAccount(db: Executor, account: SeedAccount): Promise<StaffAccount> {
  const [row] = await db
    .insert(staff)
    .values({
      username: account.username,
      passwordHash: await testHash(account.password),
      isSuperAdmin: account.isSuperAdmin ?? false,
      isOwner: account.isOwner ?? false,
    })
    .returning();
  return {
    id: row!.id,
    username: row!.username,
    isSuperAdmin: row!.isSuperAdmin,
    isOwner: row!.isOwner,
    discordId: row!.discordId,
    sessionEpoch: row!.sessionEpoch,
  };
}

/** Seeded in this order, so after a reset (identities restart) the ids are 1, 2, 3, 4. */
export const TEAM = {
  owner: { username: 'Owner', password: 'owner-password', isSuperAdmin: true, isOwner: true },
  admin: { username: 'Admin', password: 'admin-password', isSuperAdmin: true },
  mod: { username: 'Mod', password: 'mod-password' },
  other: { username: 'Other', password: 'other-password' },
} satisfies Record<string, SeedAccount>;
export type TeamRole = keyof typeof TEAM;

export async function seedTeam(db: Executor): Promise<Record<TeamRole, StaffAccount>> {
  const owner = await seedStaffAccount(db, TEAM.owner);
  const admin = await seedStaffAccount(db, TEAM.admin);
  const mod = await seedStaffAccount(db, TEAM.mod);
  const other = await seedStaffAccount(db, TEAM.other);
  return { owner, admin, mod, other };
}

/** Signs in and returns the Cookie header of the new session. */
export async function loginCookie(
  app: Parameters<typeof request>[0],
  username: string,
  password: string,
  ip = '198.51.100.7',
): Promise<string> {
  const res = await request(app).post('/api/staff/login').set('X-Forwarded-For', ip).send({ username, password });
  if (res.status !== 200) throw new Error(`login as ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return cookieOf(res);
}

/** The Cookie header a browser would send back after this response. */
export function cookieOf(res: { headers: Record<string, unknown> }): string {
  const setCookie = res.headers['set-cookie'];
  const list = Array.isArray(setCookie) ? (setCookie as string[]) : [];
  return list.map((c) => c.split(';')[0]).join('; ');
}
