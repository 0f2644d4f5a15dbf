import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { Database } from '../db/client';
import { parseEnv } from '../env';
import { silentLogger } from '../logger';
import { computeFingerprintHash } from '../modules/fingerprint';
import { createMemorySetupCodeStore } from '../modules/staff';
import type { FingerprintData } from '../shared/fingerprint';
import { startGatekeeper, type GatekeeperHandle, type StartOptions } from '../server';
import { resetDatabase } from './database';

/**
 * How long the test emulator gives the bot to answer an interaction. Discord's window is 3 s and the
 * product defers its reply after 1.5 s, but a jest worker shares two cores with the other workers and
 * their Chromium and PostgreSQL processes: starved for seconds, it missed the 3 s once in several full
 * runs (a button answered "failed"). Tests here check what the bot answers, not the window; the
 * window itself is tested against the emulator directly (interactions.test.ts).
 */
export const TEST_INTERACTION_WINDOW_MS = 15_000;

/** What every in-process test server starts with: sandbox emulators on a free port with the window above, cheap password hashes (bcrypt cost 4). */
export const TEST_START_OPTIONS = {
  emulatorPort: 0,
  emulatorAckTimeoutMs: TEST_INTERACTION_WINDOW_MS,
  bcryptCost: 4,
} satisfies Partial<StartOptions>;

/**
 * Start options for a test whose product makes many Discord calls on one emulator but checks what they do,
 * not their pace: Discord's rate-limit windows ten times shorter, the same counts per window (a guild's role
 * changes 10 per 10 s, a channel's messages 5 per 4 s). Draining the outbox otherwise waits out those windows
 * for seconds. The pacing itself is tested against Discord's own windows (src/discord-emulator/rate-limit.test.ts,
 * src/discord/discord-rest.test.ts, the outbox's tests).
 */
export const SHORT_DISCORD_WINDOWS = { discordLimits: { rateLimits: { timeScale: 0.1 } } } satisfies Partial<StartOptions>;

/** The settings of an in-process test server: web + bot on a random loopback port, a data folder of its own, no logs; `env` adds or overrides. */
export function testServerEnv(env: Record<string, string> = {}) {
  return parseEnv({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    SERVICES: 'web,bot',
    DATA_DIR: path.join(os.tmpdir(), `gatekeeper-it-${crypto.randomBytes(4).toString('hex')}`),
    LOG_LEVEL: 'silent',
    ...env,
  });
}

/**
 * The whole product in-process for integration tests: web + bot on random ports, the
 * Discord and proxycheck emulators, a test database. The outbox is drained by the test
 * (`handle.services.outboxWorker.drain()`) so outcomes are deterministic.
 */
export async function startTestGatekeeper(
  database: Database,
  env: Record<string, string> = {},
  options: Pick<StartOptions, 'auditSealDebounceMs' | 'discordLimits'> = {},
) {
  // real time plus an offset tests can move (token expiry, session timeouts); the emulator keeps real time
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs), advance: (ms: number) => void (offsetMs += ms) };
  const setupCode = createMemorySetupCodeStore('TEST-SETUP-CODE');
  const handle = await startGatekeeper(testServerEnv(env), {
    ...TEST_START_OPTIONS,
    logger: silentLogger,
    clock,
    database,
    setupCode,
    ...options,
  });
  await handle.services.bot.ready;
  return { handle, clock, setupCode };
}

/**
 * One Gatekeeper for a whole `describe`: started on the emptied database before its tests,
 * stopped after them. Read `server.handle` (and the other fields) inside tests and hooks.
 */
export function useTestGatekeeper(
  getDatabase: () => Database,
  env: Record<string, string> = {},
  options: Pick<StartOptions, 'auditSealDebounceMs' | 'discordLimits'> = {},
) {
  const server = {} as Awaited<ReturnType<typeof startTestGatekeeper>>;
  beforeAll(async () => {
    await resetDatabase(getDatabase());
    Object.assign(server, await startTestGatekeeper(getDatabase(), env, options));
  });
  afterAll(async () => server.handle?.stop());
  return server;
}

let fingerprintSeed = 0;
/** A plausible fingerprint; pass the same `device` to look like the same browser. */
export function buildFingerprint(device = `device-${++fingerprintSeed}`, overrides: Partial<FingerprintData> = {}) {
  const h = (part: string) => crypto.createHash('sha256').update(`${device}:${part}`).digest('hex').slice(0, 32);
  const fingerprintData: FingerprintData = {
    canvas: h('canvas'),
    webgl: `Google Inc.~ANGLE ${h('gpu').slice(0, 8)}~EXT_a,EXT_b`,
    audio: `124.04347${h('audio').replace(/\D/g, '').slice(0, 8)}`,
    screen: '1920x1080x24',
    fonts: 'Arial,Calibri,Verdana',
    timezone: 'Europe/Amsterdam',
    language: 'en-US,en',
    platform: 'Win32~Mozilla/5.0',
    hardware: 'cores:8~memory:8~touch:0',
    ...overrides,
  };
  return { fingerprintData, fingerprintHash: computeFingerprintHash(fingerprintData) };
}

/**
 * Walks the website flow as a browser would (cookies kept), signing in on the emulator as
 * `userId`: consent → /oauth/start → authorize → /oauth/callback → (optionally) rules.
 * Returns the agent and where the callback redirected. Pass `agent` to walk again in the
 * same browser profile (its cookies, the browser token's included), `browserToken` for the
 * page's stored copy of it (any value: a tampered one is ignored by the server).
 */
export async function walkVisitorFlow(
  handle: GatekeeperHandle,
  input: {
    userId: string;
    fingerprint?: ReturnType<typeof buildFingerprint>;
    confirmRules?: boolean;
    forwardedFor?: string;
    agent?: ReturnType<typeof request.agent>;
    browserToken?: unknown;
  },
) {
  const agent = input.agent ?? request.agent(handle.url);
  const emulator = handle.discord.emulator!;
  const withIp = <T extends request.Test>(test: T) => (input.forwardedFor ? test.set('X-Forwarded-For', input.forwardedFor) : test);
  const { body: tokenBody } = await withIp(agent.get('/api/consent/token')).expect(200);
  const fingerprint = input.fingerprint ?? buildFingerprint();
  const consented = await withIp(agent.post('/api/consent'))
    .send({
      consent: true,
      token: tokenBody.token,
      ...fingerprint,
      ...(input.browserToken !== undefined ? { browserToken: input.browserToken } : {}),
    })
    .expect(200);
  const start = await withIp(agent.get('/oauth/start')).expect(303);
  const authorize = new URL(start.headers.location as string);
  const { code, state } = emulator.authorizeAs(input.userId, authorize);
  const callback = await withIp(agent.get('/oauth/callback').query({ code, state })).expect(303);
  const landedOn = callback.headers.location as string;
  if (input.confirmRules && landedOn === '/rules') await withIp(agent.post('/api/rules/confirm')).expect(200);
  return { agent, landedOn, authorize, browserToken: consented.body.browserToken as string | undefined };
}
