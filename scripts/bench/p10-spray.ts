import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { BenchStore } from './engines';
import { driveFlows, type LoadReport } from './p2-flows';
import { BENCH_STAFF, seedBenchStaff } from './p3-dashboard';
import { startExternalDiscord, startProduct } from './product-process';
import { ms, summarize, type FigureResult } from './results';
import { createSiteTarget, send, type SiteTarget } from './visitor-client';

/**
 * P10: staff sign-in under a password spray. Visitors verify while logins with a new
 * made-up username each time arrive at a fixed rate, all from one address, or each from its
 * own address (a distributed spray). Each kind of spray runs on a store of its own, so neither
 * meets the blocks the other left (the login throttle's counts live in the database). The
 * figure is the visitors' p95 per step with and without the spray, the 5xx count on both
 * sides, and the spray's answers; the bench's owner, who signed in from its address and
 * browser before, signs in during the spray with the device cookie that first sign-in gave its
 * browser.
 */
export interface SprayOptions {
  /** concurrent visitors in every phase */
  visitors: number;
  phaseMs: number;
  /** spray logins per second (open loop: sent on schedule whatever the answers) */
  sprayPerSecond: number;
  webProcesses?: number;
  spray: SprayKind;
}

/** The sprays P10 measures: where each login comes from. */
export const SPRAYS = {
  'one address': () => SPRAY_ADDRESS,
  'many addresses': (i: number) => `203.0.${Math.floor(i / 250) % 250}.${(i % 250) + 1}`,
} satisfies Record<string, (i: number) => string>;
export type SprayKind = keyof typeof SPRAYS;

/** the owner's usual address: it signed in from here before the spray */
const OWNER_ADDRESS = '10.250.0.1';
/** the one-address spray (RFC 5737 documentation range) */
const SPRAY_ADDRESS = '192.0.2.66';

interface SprayReport {
  sent: number;
  statuses: Record<string, number>;
  latencies: number[];
}

/** Sends `perSecond` logins a second for `durationMs`, each with a new username, from `addressOf(i)`. */
async function spray(
  target: SiteTarget,
  options: { perSecond: number; durationMs: number; addressOf: (i: number) => string; prefix: string },
): Promise<SprayReport> {
  const report: SprayReport = { sent: 0, statuses: {}, latencies: [] };
  const pending: Promise<void>[] = [];
  const started = performance.now();
  const interval = 1000 / options.perSecond;
  for (let i = 0; performance.now() - started < options.durationMs; i += 1) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    report.sent += 1;
    const sentAt = performance.now();
    pending.push(
      send(target, 'POST', '/api/staff/login', {
        headers: { 'content-type': 'application/json', 'x-forwarded-for': options.addressOf(i) },
        body: JSON.stringify({ username: `${options.prefix}-${i}`, password: `guess-${i}-password` }),
        timeoutMs: 30_000,
      }).then(
        (answer) => {
          report.statuses[answer.status] = (report.statuses[answer.status] ?? 0) + 1;
          report.latencies.push(performance.now() - sentAt);
        },
        (error: unknown) => {
          const key = `error ${error instanceof Error ? error.message.slice(0, 40) : String(error)}`;
          report.statuses[key] = (report.statuses[key] ?? 0) + 1;
        },
      ),
    );
  }
  await Promise.all(pending);
  return report;
}

/**
 * A stand-in for the product that refuses every login at once (429, as the product refuses a spray):
 * the same spray sent there puts the same load on the machine's sender side (the bench shares the
 * machine's cores with the product) while the product does nothing for it, so the visitors' change
 * in that phase is the measurement's own noise and the sender's cost.
 */
async function startStandIn(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' }).end('{"error":"busy"}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The cookies a sign-in's answer gave the browser, as its Cookie header sends them back: the device cookie (`gk_staff_device`) and the session's. */
function cookiesOf(headers: Record<string, string | string[] | undefined>): { device?: string; session: string } {
  const setCookie = headers['set-cookie'];
  const pairs = (Array.isArray(setCookie) ? setCookie : []).map((cookie) => cookie.split(';')[0]!);
  const isDevice = (pair: string) => pair.startsWith('gk_staff_device=');
  return { device: pairs.find(isDevice), session: pairs.filter((pair) => !isDevice(pair)).join('; ') };
}

/**
 * The owner's sign-in from its usual address, with its browser's device cookie when it has one: its
 * status (0 when no answer came within 30 s) and the device cookie the answer gave.
 */
async function ownerSignIn(target: SiteTarget, device?: string): Promise<{ status: number; ms: number; device?: string; session: string }> {
  const started = performance.now();
  const answer = await send(target, 'POST', '/api/staff/login', {
    headers: { 'content-type': 'application/json', 'x-forwarded-for': OWNER_ADDRESS, ...(device ? { cookie: device } : {}) },
    body: JSON.stringify(BENCH_STAFF),
    timeoutMs: 30_000,
  }).catch(() => null);
  return { status: answer?.status ?? 0, ms: performance.now() - started, ...(answer ? cookiesOf(answer.headers) : { session: '' }) };
}

/**
 * The owner's dashboard asking for its session (a staff request on the staff lane, no password
 * check): sent with the sign-in, it tells how much of the sign-in's time is the server's answer
 * time for any staff request at that moment.
 */
async function sessionProbe(target: SiteTarget, session: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const answer = await send(target, 'GET', '/api/admin/session', { headers: { cookie: session }, timeoutMs: 30_000 }).catch(() => null);
  return { status: answer?.status ?? 0, ms: performance.now() - started };
}

const STEPS = ['token', 'consent', 'start', 'callback', 'rules'] as const;
const stepP95 = (load: LoadReport) => Object.fromEntries(STEPS.map((step) => [step, summarize(load.steps[step] ?? []).p95]));
const describeSteps = (p95: Record<string, number>) => STEPS.map((step) => `${step} ${p95[step]!.toFixed(0)}`).join(', ');
const describeStatuses = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status} ×${n}`)
    .join(', ');
const fiveHundreds = (statuses: Record<string, number>) =>
  Object.entries(statuses).reduce((n, [status, count]) => n + (/^5\d\d$/.test(status) ? count : 0), 0);

export async function measureSpray(store: BenchStore, options: SprayOptions): Promise<FigureResult> {
  const database = await store.open();
  try {
    await seedBenchStaff(database);
  } finally {
    await database.close();
  }
  // the emulator's one OAuth2 token bucket is lifted, as in P2: the figure is the product's
  const discord = await startExternalDiscord({ rateLimits: { buckets: { oauth: { limit: 1_000_000, windowMs: 1000 } } } });
  const product = await startProduct({
    store,
    env: { ...discord.env, TRUST_PROXY: 'loopback', SERVICES: 'web,bot,jobs' },
    webProcesses: options.webProcesses,
  });
  const visitorsTarget = createSiteTarget(product.url, options.visitors * 2);
  const sprayTarget = createSiteTarget(product.url, 512);
  const standIn = await startStandIn();
  const standInTarget = createSiteTarget(standIn.url, 512);
  const ownerTarget = createSiteTarget(product.url, 1);
  const probeTarget = createSiteTarget(product.url, 1);
  try {
    const before = await ownerSignIn(ownerTarget);
    if (before.status !== 200) throw new Error(`the owner's first sign-in answered ${before.status}`);
    if (!before.device) throw new Error("the owner's first sign-in gave its browser no device cookie");
    // the probe's connection is opened now, as the owner's was by its sign-in: opened during a spray it would time the listen backlog
    if ((await sessionProbe(probeTarget, before.session)).status !== 200) throw new Error("the owner's session probe failed");
    // a phase's worth of flows first, not measured: a fresh product's first phase is its slowest (its code not yet
    // optimised, its caches cold), and a quiet phase measured then made any later phase look faster than it was
    await driveFlows(visitorsTarget, discord.emulator, { concurrency: options.visitors, durationMs: options.phaseMs, prefix: 'sprwarm' });

    const name = options.spray;
    const prefix = name === 'one address' ? 'spr1' : 'sprn';
    const phase = (label: string) =>
      driveFlows(visitorsTarget, discord.emulator, {
        concurrency: options.visitors,
        durationMs: options.phaseMs,
        prefix: `${prefix}${label}`,
      });
    const sprayAt = (target: SiteTarget, label: string, phases = 1) =>
      spray(target, {
        perSecond: options.sprayPerSecond,
        durationMs: options.phaseMs * phases,
        addressOf: SPRAYS[name],
        prefix: `${prefix}${label}`,
      });
    // the spray is compared with a phase without one just before it, so what changes from phase to phase
    // (the store grows by a thousand members each) is not read as the spray's effect; and with the same spray
    // sent to the stand-in, which tells how far the visitors' figures move when the product does nothing for it
    const quiet = await phase('q');
    const [control] = await Promise.all([phase('c'), sprayAt(standInTarget, 's')]);
    // the spray at the product lasts two phases: its first (the onset, while the throttles and the flood pause
    // meet it) and its second (a spray under way, as one lasting minutes is most of its time)
    const sprayedAtProduct = sprayAt(sprayTarget, 'u', 2);
    const onset = await phase('o');
    const [load, [owner, probe]] = await Promise.all([
      phase('v'),
      // the owner signs in halfway through the second phase, from the address and browser it signed in from before
      new Promise<void>((resolve) => setTimeout(resolve, options.phaseMs / 2)).then(() =>
        Promise.all([ownerSignIn(ownerTarget, before.device), sessionProbe(probeTarget, before.session)]),
      ),
    ]);
    const sprayed = await sprayedAtProduct;

    // what the product logged as going wrong (a failed sign-in's reason, a busy database), over the whole run
    const problems = Object.entries(product.loggedProblems())
      .sort(([, a], [, b]) => b - a)
      .slice(0, 8)
      .map(([what, n]) => `${what} ×${n}`)
      .join('; ');
    const label = (options.webProcesses ?? 1) > 1 ? ` (${options.webProcesses} processes)` : '';
    const visitorsLine = (load: LoadReport) =>
      `${load.completed} flows completed, ${load.failed} failed${Object.keys(load.failures).length ? ` (${describeStatuses(load.failures)})` : ''}, ${load.serverErrors} with a 5xx; p95 per step ms: ${describeSteps(stepP95(load))}`;
    const quietP95 = stepP95(quiet);
    const worstOf = (phase: LoadReport) =>
      Math.max(...STEPS.map((step) => stepP95(phase)[step]! / Math.max(quietP95[step]!, 1))).toFixed(2);
    const flowsOf = (phase: LoadReport) => (phase.completed / Math.max(quiet.completed, 1)).toFixed(2);
    const spray5xx = fiveHundreds(sprayed.statuses);
    // a spray request with no answer (a timeout, a dropped connection)
    const lost = Object.entries(sprayed.statuses).reduce((n, [status, count]) => n + (status.startsWith('error') ? count : 0), 0);
    return {
      figure: `P10 visitors during a spray, ${name}${label}`,
      engine: store.kind,
      value: `${load.serverErrors + onset.serverErrors + spray5xx} × 5xx; under way p95 ×${worstOf(load)} (worst step), flows ×${flowsOf(load)}; onset ×${worstOf(onset)}, ×${flowsOf(onset)}; stand-in ×${worstOf(control)}, ×${flowsOf(control)}`,
      target: '0 × 5xx, owner 200',
      pass:
        [load, onset].every((phase) => phase.serverErrors === 0 && phase.failed === 0) &&
        spray5xx === 0 &&
        lost === 0 &&
        owner.status === 200,
      note:
        `P10 ${store.kind}${label}, ${options.visitors} concurrent visitors, ${(options.phaseMs / 1000).toFixed(0)} s per phase. Without a spray, just before: ${visitorsLine(quiet)}. With the spray sent to a stand-in that refuses it at once: ${visitorsLine(control)}. ` +
        `With ${options.sprayPerSecond} logins/s from ${name} for two phases (${sprayed.sent} sent: ${describeStatuses(sprayed.statuses)}; answered in p50 ${ms(summarize(sprayed.latencies).p50)}, p95 ${ms(summarize(sprayed.latencies).p95)}), its first phase: ${visitorsLine(onset)}; its second: ${visitorsLine(load)}; ` +
        `the owner, from the address and browser (device cookie) it signed in from before, signed in halfway: ${owner.status === 0 ? 'no answer' : owner.status} in ${ms(owner.ms)} ` +
        `(its dashboard's session probe, sent at the same moment: ${probe.status === 0 ? 'no answer' : probe.status} in ${ms(probe.ms)}); ` +
        `the product's warnings over the run: ${problems || 'none'}`,
    };
  } finally {
    for (const target of [visitorsTarget, sprayTarget, standInTarget, ownerTarget, probeTarget]) target.agent.destroy();
    await standIn.close();
    await product.stop();
    await discord.close();
  }
}
