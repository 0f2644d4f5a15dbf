import http from 'node:http';
import type { Database } from '../db/client';
import type { GatekeeperHandle } from '../server';
import { createTestDatabase, resetDatabase } from '../test-support/database';
import { startTestGatekeeper } from '../test-support/gatekeeper';
import { buildBenchFingerprint, Visitor, visitorAddress } from '../../scripts/bench/visitor-client';
import { DISCORD_INVALID_REQUEST_LIMIT } from './invalid-requests';

// a minute on a quiet machine; a busy shared one can take twice that
jest.setTimeout(180_000);

/**
 * A raid against the emulator, the whole product in-process: every visitor walks the real
 * website flow (consent, sign-in, the code exchange, rules), the outbox joins the new ones,
 * posts the #logs lines and changes roles, and some click 'Complete Verification!' (the
 * gateway client's reply, then two role changes). Discord's invalid request limit must stay
 * far out of reach: the emulator never blocks the address (Cloudflare's 1015), and the
 * product's own count never reaches half of it (where the budget gate pauses log messages).
 *
 * Scale: 200 visitors, 0.1 of the 2,000 the P4 bench runs. The emulator's rate-limit windows
 * are Discord's × 0.05 (the same calls per window, 20 times faster), so the invalid request
 * limit's window and count are scaled by that (500 per 30 s: Discord's rate of 16.7 invalid
 * answers a second), and its count once more by the raid's size, since a raid draws invalid
 * answers in proportion to its visitors or faster: 50 per 30 s. The product counts against the
 * same limit. With the sign-in queue and the budget gate turned off, the same raid reaches half
 * of it within half a minute on a busy two-core machine; with them, a handful.
 * The token endpoint is one bucket of 5 per 250 ms (20 exchanges a second), and the raiders
 * come back from Discord's sign-in 100 at once: far more than a window allows, so the
 * exchanges must wait their turn behind Discord's rate-limit headers (the test checks the
 * bucket was spent window after window), as they would at Discord's own limit in a bigger raid.
 */
const VISITORS = 200;
/** visitors on their way to Discord at once, then back from it at once */
const CONCURRENCY = 24;
const CALLBACKS_AT_ONCE = 100;
const TIME_SCALE = 0.05;
/** the raid's size against the 2,000 visitors of the target */
const RAID_SCALE = VISITORS / 2000;
const SCALED_LIMIT = {
  limit: Math.round(DISCORD_INVALID_REQUEST_LIMIT.limit * TIME_SCALE * RAID_SCALE),
  windowMs: DISCORD_INVALID_REQUEST_LIMIT.windowMs * TIME_SCALE,
};
const TOKEN_BUCKET = { limit: 5, windowMs: 250 };
/** every CLICKER_EVERY-th visitor clicks the verification button once its flow is done */
const CLICKER_EVERY = 5;

/** `work` on every item, `concurrency` at a time; the results in the items' order. */
async function runAll<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]!);
    }),
  );
  return results;
}

/** How many of the token bucket's windows (fixed, each from the first call after the last one ended) had all their calls. */
function fullWindows(sentAt: number[]): number {
  let full = 0;
  for (let i = 0; i < sentAt.length;) {
    const end = sentAt[i]! + TOKEN_BUCKET.windowMs;
    let j = i;
    while (j < sentAt.length && sentAt[j]! < end) j++;
    if (j - i >= TOKEN_BUCKET.limit) full++;
    i = j;
  }
  return full;
}

describe("a 200-visitor raid stays far from Discord's invalid request limit", () => {
  let database: Database;
  let handle: GatekeeperHandle;

  beforeAll(async () => {
    database = await createTestDatabase();
    await resetDatabase(database);
    ({ handle } = await startTestGatekeeper(
      database,
      { TRUST_PROXY: 'loopback' },
      {
        discordLimits: {
          rateLimits: { timeScale: TIME_SCALE, minWindowMs: 50, buckets: { oauth: TOKEN_BUCKET } },
          invalidRequests: SCALED_LIMIT,
        },
      },
    ));
  });
  afterAll(async () => {
    await handle?.stop();
    await database?.close();
  });

  it('verifies everyone without the emulator ever answering 1015 and with the count under half the budget', async () => {
    const emulator = handle.discord.emulator!;
    const guard = handle.services.guard;
    expect(emulator.invalidRequests).toMatchObject(SCALED_LIMIT);
    expect(guard.invalid.limit).toBe(SCALED_LIMIT.limit);

    // the product's count, sampled through the raid; the raid stops at once when a limit is reached
    let peak = 0;
    let reached: (error: Error) => void = () => undefined;
    const limitReached = new Promise<never>((_, reject) => (reached = reject));
    limitReached.catch(() => undefined);
    const sampler = setInterval(() => {
      peak = Math.max(peak, guard.invalid.total());
      if (emulator.invalidRequests!.bansImposed > 0)
        reached(
          new Error(`the emulator blocked the product's address (Cloudflare's 1015); the product had counted ${peak} invalid answers`),
        );
      if (peak >= SCALED_LIMIT.limit / 2)
        reached(new Error(`the product counted ${peak} invalid answers: half the budget of ${SCALED_LIMIT.limit} or more`));
    }, 50);
    const logStart = emulator.state.requestLog.length;
    const channelId = emulator.guild.channelId('verification');
    const panel = emulator.findButton(channelId, 'Complete Verification!')!;

    // most raiders are in the server already with Unverified (they came through the panel); the others join at sign-in
    const visitors = Array.from({ length: VISITORS }, (_, i) => {
      const user = emulator.createUser({ username: `raider${i}` });
      if (i % 5 !== 0) emulator.addGuildMember(user.id, ['Unverified']);
      return { n: i, userId: user.id };
    });
    // a connection per request: a kept-alive one the busy server closes while it sits idle between a visitor's polls would be reset when reused
    const target = { url: handle.url, agent: new http.Agent({ keepAlive: false, maxSockets: CALLBACKS_AT_ONCE }) };
    const failures: string[] = [];
    const clicks: Promise<{ failed?: boolean }>[] = [];
    let clicked: { failed?: boolean }[] = [];
    const raid = async () => {
      // the raid: everyone consents and is sent to Discord; then they all come back from Discord at once
      const signedIn = await runAll(visitors, CONCURRENCY, async (v) => {
        const visitor = new Visitor(target, visitorAddress(v.n + 70_000));
        const token = await visitor.get('token', '/api/consent/token');
        const consent = await visitor.post('consent', '/api/consent', {
          consent: true,
          token: (JSON.parse(token.body) as { token: string }).token,
          ...buildBenchFingerprint(`raid-device-${v.n}`),
        });
        const start = await visitor.get('start', '/oauth/start');
        if (consent.status !== 200 || start.status !== 303) failures.push(`${v.n}: consent ${consent.status}, start ${start.status}`);
        return { ...v, visitor, authorize: new URL(start.headers.location ?? '/', handle.url) };
      });
      await runAll(signedIn, CALLBACKS_AT_ONCE, (v) =>
        backFromDiscord(v).catch((error: unknown) => void failures.push(`${v.n}: ${String(error)}`)),
      );
      async function backFromDiscord({ n, userId, visitor, authorize }: (typeof signedIn)[number]): Promise<void> {
        const { code, state } = emulator.authorizeAs(userId, authorize);
        let callback = await visitor.get('callback', `/oauth/callback?${new URLSearchParams({ code, state }).toString()}`);
        // a queued exchange answers "Finishing sign-in…", which the browser refreshes every 2 s
        for (let polls = 0; callback.status === 200 && polls < 30; polls++) {
          await new Promise((resolve) => setTimeout(resolve, 2000));
          callback = await visitor.get('callback', '/oauth/finish');
        }
        const rules = callback.headers.location === '/rules' ? await visitor.post('rules', '/api/rules/confirm') : null;
        if (rules?.status !== 200)
          return void failures.push(`${n}: callback ${callback.status} ${callback.headers.location ?? ''}, rules ${rules?.status ?? '-'}`);
        // a member of the server clicks as soon as the website is done; the joins and #logs lines are still queued
        if (n % CLICKER_EVERY === 1)
          clicks.push(
            emulator.clickButton(
              { userId, channelId, messageId: panel.messageId, customId: panel.customId },
              { settleMs: 20, timeoutMs: 30_000 },
            ),
          );
      }
      clicked = await Promise.all(clicks);
      await handle.services.outboxWorker.drain();
    };
    try {
      await Promise.race([raid(), limitReached]);
    } finally {
      clearInterval(sampler);
      target.agent.destroy();
    }
    peak = Math.max(peak, guard.invalid.total());

    const log = emulator.state.requestLog.slice(logStart);
    // never blocked, and the product's own count stayed under half the budget
    expect(emulator.invalidRequests!.bansImposed).toBe(0);
    expect(log.filter((r) => r.route === '(blocked)')).toEqual([]);
    expect(peak).toBeLessThan(SCALED_LIMIT.limit / 2);
    expect(emulator.invalidRequests!.highest()).toBeLessThan(SCALED_LIMIT.limit / 2);
    expect(failures).toEqual([]);
    expect(clicked.filter((c) => c.failed)).toEqual([]);
    // the Discord side did its work: joins, role changes, #logs lines
    const roleNames = (userId: string) =>
      (emulator.state.guild.members.get(userId)?.roles ?? [])
        .map((id) => emulator.state.guild.roles.get(id)?.name)
        .sort()
        .join(',');
    for (const v of visitors) expect([v.n, roleNames(v.userId)]).toEqual([v.n, v.n % CLICKER_EVERY === 1 ? 'Verified' : 'Unverified']);
    // Add Guild Member answers 201 to a new member (204 to one already in)
    expect(log.filter((r) => r.method === 'PUT' && /\/guilds\/\d+\/members\/\d+$/.test(r.path) && r.status === 201)).toHaveLength(
      VISITORS / 5,
    );
    expect(
      log.filter(
        (r) => r.method === 'POST' && r.path.endsWith(`/channels/${emulator.guild.channelId('logs')}/messages`) && r.status === 200,
      ).length,
    ).toBeGreaterThan(0);
    // the sign-ins came faster than the token endpoint allows: its bucket was spent, window after window, and the exchanges waited their turn
    const exchanges = log.filter((r) => r.method === 'POST' && r.path.endsWith('/oauth2/token'));
    expect(exchanges.filter((r) => r.status === 200)).toHaveLength(VISITORS);
    expect(fullWindows(exchanges.map((r) => r.at))).toBeGreaterThanOrEqual(10);
  });
});
