import { performance } from 'node:perf_hooks';
import { createStore } from '../bench/engines';
import { startExternalDiscord, startProduct } from '../bench/product-process';
import { buildBenchFingerprint, createSiteTarget, Visitor, type HttpAnswer, type SiteTarget } from '../bench/visitor-client';
import type { DiscordEmulator } from '../../src/discord-emulator';
import type { DrillOptions, DrillResult } from './drills';

/**
 * Drill 4: a classroom behind one address. `visitors` people on one school, campus or
 * carrier address (one X-Forwarded-For) start verifying `arrivalMs / visitors` apart, each in
 * their own browser (cookie jar), and retry the way people do: a refused step is tried again
 * after the wait the answer states — the page's own refresh (`<meta http-equiv="refresh">`),
 * else the wait its text names ("try again in 12 seconds", "wait a minute"), else its
 * Retry-After. Every one of them must finish the flow (rules confirmed) within `limitMs` of
 * the first arrival.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const WORD_SECONDS: Record<string, number> = { second: 1, seconds: 1, minute: 60, minutes: 60 };

/** How long a person waits before trying a refused step again, from what the answer told them. */
export function statedWaitSeconds(answer: HttpAnswer): number {
  const refresh = /<meta http-equiv="refresh" content="(\d+)/.exec(answer.body);
  if (refresh) return Number(refresh[1]);
  const words = /try again in ((?:\d+ (?:seconds?|minutes?) ?)+)/.exec(answer.body);
  if (words) return [...words[1]!.matchAll(/(\d+) (\w+)/g)].reduce((sum, [, n, unit]) => sum + Number(n) * (WORD_SECONDS[unit!] ?? 1), 0);
  if (/wait a minute/.test(answer.body)) return 60;
  return Number(answer.headers['retry-after'] ?? 2);
}

interface Pupil {
  finishedAtMs: number | null;
  refusals: number;
  /** the last unexpected answer, when the pupil did not finish */
  stuck: string | null;
}

/** One person's flow, each step retried after a refusal (429) as the answer says, until the deadline. */
async function patientFlow(
  target: SiteTarget,
  emulator: DiscordEmulator,
  input: { userId: string; address: string; n: number; deadline: number; startedAt: number },
): Promise<Pupil> {
  const visitor = new Visitor(target, input.address);
  const pupil: Pupil = { finishedAtMs: null, refusals: 0, stuck: null };
  const patiently = async (step: () => Promise<HttpAnswer>): Promise<HttpAnswer | null> => {
    for (;;) {
      const answer = await step();
      if (answer.status !== 429) return answer;
      pupil.refusals++;
      const waitMs = statedWaitSeconds(answer) * 1000;
      if (performance.now() + waitMs > input.deadline) return null;
      await sleep(waitMs);
    }
  };
  const stuck = (step: string, answer: HttpAnswer | null) => {
    pupil.stuck = answer ? `${step} answered ${answer.status}` : `${step} still refused at the deadline`;
    return pupil;
  };

  const token = await patiently(() => visitor.get('token', '/api/consent/token'));
  if (token?.status !== 200) return stuck('consent token', token);
  const fingerprint = buildBenchFingerprint(`pupil-device-${input.n}`);
  const consent = await patiently(() =>
    visitor.post('consent', '/api/consent', { consent: true, token: (JSON.parse(token.body) as { token: string }).token, ...fingerprint }),
  );
  if (consent?.status !== 200) return stuck('consent', consent);
  const start = await patiently(() => visitor.get('start', '/oauth/start'));
  if (start?.status !== 303 || !start.headers.location?.startsWith('http')) return stuck('/oauth/start', start);
  const { code, state } = emulator.authorizeAs(input.userId, new URL(start.headers.location));
  let callback = await patiently(() => visitor.get('callback', `/oauth/callback?${new URLSearchParams({ code, state }).toString()}`));
  // "Finishing sign-in…" refreshes itself to /oauth/finish every 2 s
  while (callback?.status === 200 && performance.now() < input.deadline) {
    await sleep(2000);
    callback = await patiently(() => visitor.get('callback', '/oauth/finish'));
  }
  if (callback?.status !== 303 || callback.headers.location !== '/rules') return stuck('/oauth/callback', callback);
  const rules = await patiently(() => visitor.post('rules', '/api/rules/confirm'));
  if (rules?.status !== 200) return stuck('rules', rules);
  pupil.finishedAtMs = performance.now() - input.startedAt;
  return pupil;
}

export async function drillClassroom(
  options: DrillOptions & { visitors: number; arrivalMs: number; limitMs: number },
): Promise<DrillResult> {
  const store = await createStore(options.engine, { serverUrl: options.serverUrl, label: 'classroom' });
  // Discord's own limits, the OAuth2 token bucket (one for all callers in the emulator, per address at Discord) lifted: the drill is about the product's limit
  const discord = await startExternalDiscord({ rateLimits: { buckets: { oauth: { limit: 1_000_000, windowMs: 1000 } } } });
  const product = await startProduct({
    store,
    entry: options.entry,
    env: { ...discord.env, TRUST_PROXY: 'loopback', SERVICES: 'web,bot,jobs' },
  }).catch(async (error: unknown) => {
    await discord.close();
    await store.dispose();
    throw error;
  });
  const target = createSiteTarget(product.url, 64);
  try {
    const address = '198.18.40.1';
    const startedAt = performance.now();
    const deadline = startedAt + options.limitMs;
    const gapMs = options.arrivalMs / options.visitors;
    options.log?.(
      `classroom [${options.engine}]: ${options.visitors} visitors on ${address}, one every ${(gapMs / 1000).toFixed(1)} s, ${options.limitMs / 60_000} min to finish…`,
    );
    const pupils = await Promise.all(
      Array.from({ length: options.visitors }, async (_, n) => {
        await sleep(n * gapMs);
        const userId = discord.emulator.createUser({ username: `pupil${n}` }).id;
        try {
          return await patientFlow(target, discord.emulator, { userId, address, n, deadline, startedAt });
        } catch (error) {
          return {
            finishedAtMs: null,
            refusals: 0,
            stuck: error instanceof Error ? error.message.slice(0, 100) : String(error),
          } satisfies Pupil;
        }
      }),
    );
    const finished = pupils
      .filter((p) => p.finishedAtMs !== null)
      .map((p) => p.finishedAtMs!)
      .sort((a, b) => a - b);
    const refusals = pupils.reduce((sum, p) => sum + p.refusals, 0);
    const stuck = new Map<string, number>();
    for (const p of pupils) if (p.stuck) stuck.set(p.stuck, (stuck.get(p.stuck) ?? 0) + 1);
    const facts = [
      `${finished.length}/${options.visitors} visitors on one address finished the whole flow within ${options.limitMs / 60_000} min (arriving over ${options.arrivalMs / 1000} s)`,
      finished.length
        ? `the last finished ${(finished.at(-1)! / 1000).toFixed(1)} s after the first arrived; the median ${(finished[Math.floor(finished.length / 2)]! / 1000).toFixed(1)} s`
        : 'nobody finished',
      `${refusals} refusals (429) met on the way${stuck.size ? `; not finished: ${[...stuck].map(([why, n]) => `${why} ×${n}`).join(', ')}` : ''}`,
    ];
    return { drill: 'classroom behind one address', engine: options.engine, ok: finished.length === options.visitors, facts };
  } finally {
    target.agent.destroy();
    await product.stop().catch(() => undefined);
    await discord.close().catch(() => undefined);
    await store.dispose().catch(() => undefined);
  }
}
