import { performance } from 'node:perf_hooks';
import type { BenchStore } from './engines';
import { busiestThread, machineCpu, processesCpuSeconds, threadCpuSeconds } from './host-cpu';
import { describeMachineSpeed, measureMachineSpeed, probeMachineSpeed, splitByMachineSpeed } from './machine-speed';
import { startExternalDiscord, startProduct, type ProductProcess, type ServerFlowStats } from './product-process';
import { ms, summarize, type FigureResult } from './results';
import {
  buildBenchFingerprint,
  createSiteTarget,
  runVisitorFlow,
  visitorAddress,
  type FlowOutcome,
  type SiteTarget,
} from './visitor-client';
import type { DiscordEmulator } from '../../src/discord-emulator';

export interface FlowLoadOptions {
  /** concurrent visitors during the throughput phase */
  concurrency: number;
  durationMs: number;
  /** flows run one at a time to measure the server's own time per flow */
  serialFlows: number;
  /** where visitor numbering starts (distinct addresses and users across phases) */
  firstVisitor?: number;
  cpuProfileDir?: string;
  /** WEB_CONCURRENCY of the product (worker processes; 1 = one process) */
  webProcesses?: number;
}

export interface LoadReport {
  completed: number;
  failed: number;
  elapsedMs: number;
  failures: Record<string, number>;
  serverErrors: number;
  latencies: number[];
  /** client-side time of each step of the completed flows (ms) */
  steps: Record<string, number[]>;
  /** with `probeSpeed`: by flow id, the mean of the machine-speed probes run just before and just after the flow (ms) */
  speedByFlow: Record<string, number>;
}

let visitorSeq = 0;

/** One new visitor: a new Discord account, its own address; one in ten reuses a household device. */
export function nextVisitor(emulator: DiscordEmulator, prefix: string) {
  const n = ++visitorSeq;
  const user = emulator.createUser({ username: `${prefix}${n}` });
  const device = n % 10 === 0 ? `${prefix}-device-${n - 1}` : `${prefix}-device-${n}`;
  return { n, userId: user.id, address: visitorAddress(n + 1000), fingerprint: buildBenchFingerprint(device) };
}

/** Runs flows from `concurrency` visitors at once until `durationMs` has passed (or `total` flows are done). */
export async function driveFlows(
  target: SiteTarget,
  emulator: DiscordEmulator,
  options: {
    concurrency: number;
    durationMs?: number;
    total?: number;
    prefix: string;
    flowIds?: boolean;
    confirmRules?: boolean;
    /** one at a time only: probe the machine's speed (machine-speed.ts) between flows, into `speedByFlow` */
    probeSpeed?: boolean;
    onFlow?: (outcome: FlowOutcome, visitor: ReturnType<typeof nextVisitor>) => void;
  },
): Promise<LoadReport> {
  if (options.probeSpeed && (options.concurrency !== 1 || !options.flowIds))
    throw new Error('driveFlows: probeSpeed needs flows one at a time, with flow ids');
  const report: LoadReport = {
    completed: 0,
    failed: 0,
    elapsedMs: 0,
    failures: {},
    serverErrors: 0,
    latencies: [],
    steps: {},
    speedByFlow: {},
  };
  let lastProbe = options.probeSpeed ? probeMachineSpeed() : Number.NaN;
  const started = performance.now();
  const deadline = options.durationMs ? started + options.durationMs : Number.POSITIVE_INFINITY;
  let issued = 0;
  const worker = async () => {
    while (performance.now() < deadline && (options.total === undefined || issued < options.total)) {
      issued++;
      const visitor = nextVisitor(emulator, options.prefix);
      const flowId = options.flowIds ? `${options.prefix}${visitor.n}` : undefined;
      let outcome: FlowOutcome;
      try {
        outcome = await runVisitorFlow(target, emulator, { ...visitor, flowId, confirmRules: options.confirmRules });
      } catch (error) {
        report.failed++;
        const key = `exception: ${error instanceof Error ? error.message.slice(0, 60) : String(error)}`;
        report.failures[key] = (report.failures[key] ?? 0) + 1;
        continue;
      }
      if (options.probeSpeed && flowId) {
        // the probe after this flow is the one before the next: each probe is run once
        const probe = probeMachineSpeed();
        report.speedByFlow[flowId] = (lastProbe + probe) / 2;
        lastProbe = probe;
      }
      options.onFlow?.(outcome, visitor);
      if (Object.values(outcome.statuses).some((s) => s >= 500)) report.serverErrors++;
      if (outcome.completed) {
        report.completed++;
        report.latencies.push(outcome.elapsedMs);
        for (const [step, value] of Object.entries(outcome.stepMs)) (report.steps[step] ??= []).push(value);
      } else {
        report.failed++;
        const key = `${outcome.failedStep} ${outcome.statuses[outcome.failedStep ?? ''] ?? '?'}${outcome.landedOn ? ` → ${outcome.landedOn}` : ''}`;
        report.failures[key] = (report.failures[key] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  report.elapsedMs = performance.now() - started;
  return report;
}

/**
 * Flows per web process run before the serial phase the server-time figure is read from. A server just
 * started is slower: V8 optimises a function only after many calls, and a route's code runs once per flow.
 * Measured 2026-11-27 (1,500 flows one at a time after 40 of warm-up, p50 by 100 flows, 100k members):
 * PGlite 11.5, 10.0, 9.0, then 9.4-7.6 ms from the 300th flow; PostgreSQL with 2 processes, whose flows
 * alternate between them, 11.2, 10.4, then 9.3-8.6 ms to the 700th flow and 8.6-8.0 ms after; PGlite at
 * 1M members 12.2, 9.8, then 8.5-7.5 ms from the 200th. After 500 flows (4 at once), 600 flows one at a time
 * were level from the first: 8.4, 8.5, 8.1, 8.2, 8.3, 8.4 ms. A server in production has served that many
 * long before its time per flow matters; the first flows after start are still reported, in the note.
 */
export const STEADY_WARMUP_FLOWS = 500;

/** Whole flows only (token, consent, start, callback, rules). */
function wholeFlows(stats: ServerFlowStats[]): ServerFlowStats[] {
  return stats.filter((s) => s.requests === 5);
}

function serverAdded(stats: ServerFlowStats[]): number[] {
  return wholeFlows(stats).map((s) => s.handlerMs - s.outboundMs);
}

/**
 * The serial phase's server time in the machine's fast and slow periods (machine-speed.ts): this VM
 * switches between two speeds every few seconds to tens of seconds, and a phase of a few seconds can fall in
 * either or straddle both.
 */
function serverTimeBySpeed(stats: ServerFlowStats[], speedByFlow: Record<string, number>): string {
  const { fast, slow, fastestMs } = splitByMachineSpeed(wholeFlows(stats), (s) => speedByFlow[s.id]);
  const part = (flows: ServerFlowStats[], name: string) =>
    flows.length === 0 ? `none in ${name}` : `${name} (${flows.length} flows) p50 ${ms(summarize(serverAdded(flows)).p50)}`;
  return `machine-speed probes between flows (${ms(fastestMs)} the fastest): ${part(fast, 'fast periods, probe within 25% of the fastest')}, ${part(slow, 'slower periods')}`;
}

/** p50 of each step's client-side time, e.g. "token 3.1, consent 5.0, …" (ms). */
export function stepBreakdown(steps: Record<string, number[]>): string {
  return Object.entries(steps)
    .map(([step, values]) => `${step} ${summarize(values).p50.toFixed(1)}`)
    .join(', ');
}

function routeBreakdown(stats: ServerFlowStats[]): string {
  const per: Record<string, number[]> = {};
  for (const flow of stats) for (const [route, value] of Object.entries(flow.routes)) (per[route] ??= []).push(value);
  return Object.entries(per)
    .map(([route, values]) => `${route.replace(/^(GET|POST) /, '')} ${summarize(values).p50.toFixed(1)}`)
    .join(', ');
}

/**
 * P2: whole website verifications against the Discord and proxycheck emulators (in this
 * process), the product in a child process with all three roles. Phase 1 runs flows one
 * at a time and reads, from the server-side probe, the time the server spends on each
 * flow minus the time it waits for Discord and proxycheck. Phase 2 runs `concurrency`
 * visitors for `durationMs` and counts completed flows per second.
 */
export async function measureFlows(store: BenchStore, options: FlowLoadOptions): Promise<FigureResult[]> {
  // The emulator's OAuth2 token bucket is one 50/s bucket for every anonymous caller; real
  // Discord limits the token endpoint per client address. Lifted here so the figure is
  // the product's, and said so in the note.
  const discord = await startExternalDiscord({ rateLimits: { buckets: { oauth: { limit: 1_000_000, windowMs: 1000 } } } });
  let product: ProductProcess | undefined;
  try {
    product = await startProduct({
      store,
      env: { ...discord.env, TRUST_PROXY: 'loopback', SERVICES: 'web,bot,jobs' },
      probe: true,
      cpuProfileDir: options.cpuProfileDir,
      webProcesses: options.webProcesses,
    });
    const processes = options.webProcesses ?? 1;
    const label = processes > 1 ? ` (${processes} processes)` : '';
    const target = createSiteTarget(product.url, options.concurrency * 2);
    const emulator = discord.emulator;

    // a short warm-up (connection pool, prepared plans), then the serial phase of a server just started
    await driveFlows(target, emulator, { concurrency: 4, total: 40, prefix: 'warm' });
    await product.resetFlowStats();
    await driveFlows(target, emulator, { concurrency: 1, total: options.serialFlows, prefix: 'cold', flowIds: true });
    const cold = summarize(serverAdded(await product.flowStats()));
    // then warm to the steady state (STEADY_WARMUP_FLOWS), and the serial phase the figure is read from;
    // the machine's speed (machine-speed.ts) is measured just before and just after it
    await driveFlows(target, emulator, { concurrency: 4, total: STEADY_WARMUP_FLOWS * processes, prefix: 'steady' });
    const speedBefore = measureMachineSpeed();
    await product.resetFlowStats();
    const serial = await driveFlows(target, emulator, {
      concurrency: 1,
      total: options.serialFlows,
      prefix: 'serial',
      flowIds: true,
      probeSpeed: true,
    });
    const serialStats = await product.flowStats();
    const speedAfter = measureMachineSpeed();
    const added = summarize(serverAdded(serialStats));
    const wall = summarize(serial.latencies);
    // from here flows run in parallel: the probe needs its AsyncLocalStorage to attribute their calls
    await product.resetFlowStats({ concurrent: true });

    const cpuBefore = product.cpuSeconds();
    const mainBefore = product.mainThreadCpuSeconds();
    const selfBefore = process.cpuUsage();
    const machineBefore = machineCpu();
    const databaseServerBefore = store.kind === 'postgres' ? processesCpuSeconds('postgres') : Number.NaN;
    const threadsBefore = threadCpuSeconds(product.child.pid!);
    const load = await driveFlows(target, emulator, {
      concurrency: options.concurrency,
      durationMs: options.durationMs,
      prefix: 'load',
      flowIds: true,
    });
    const serverCpuSeconds = product.cpuSeconds() - cpuBefore;
    const machineAfter = machineCpu();
    const databaseServerSeconds = store.kind === 'postgres' ? processesCpuSeconds('postgres') - databaseServerBefore : Number.NaN;
    const busiest = busiestThread(threadsBefore, threadCpuSeconds(product.child.pid!), product.child.pid!);
    const seconds = load.elapsedMs / 1000;
    const serverCpu = serverCpuSeconds / seconds;
    const mainCpu = (product.mainThreadCpuSeconds() - mainBefore) / seconds;
    const self = process.cpuUsage(selfBefore);
    const benchSeconds = (self.user + self.system) / 1e6;
    const benchCpu = benchSeconds / seconds;
    const loadStats = await product.flowStats();
    const loadAdded = summarize(serverAdded(loadStats));
    const loadWall = summarize(load.latencies);
    target.agent.destroy();

    const rate = load.completed / seconds;
    const perFlow = (cpuSeconds: number) => `${((cpuSeconds / Math.max(load.completed, 1)) * 1000).toFixed(1)} ms`;
    const machineBusy = (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total);
    // where the machine's CPU went during the load, per completed flow: the product, the database server (PostgreSQL
    // backends; PGlite's is the product's own worker thread), the bench (load generator and emulators)
    const where =
      `machine ${(machineBusy * 100).toFixed(0)}% busy over its cores; CPU per flow: product ${perFlow(serverCpuSeconds)}` +
      (store.kind === 'postgres' ? `, PostgreSQL server ${perFlow(databaseServerSeconds)}` : '') +
      `, bench ${perFlow(benchSeconds)}` +
      (processes === 1 && busiest
        ? `; the product's busiest thread besides the main one ${((busiest.seconds / seconds) * 100).toFixed(0)}% of a core${store.kind === 'pglite' ? ' (the database worker)' : ''}`
        : '') +
      `; ${(load.completed / (serverCpuSeconds + (store.kind === 'postgres' ? databaseServerSeconds : 0))).toFixed(0)} flows per CPU-second of product${store.kind === 'postgres' ? ' + database server' : ''}`;
    const goal = store.kind === 'postgres' ? 300 : 100;
    const failures = Object.entries(load.failures)
      .map(([k, v]) => `${k} ×${v}`)
      .join(', ');
    return [
      {
        figure: `P2 verification flows/s${label}`,
        engine: store.kind,
        value: `${rate.toFixed(0)} flows/s`,
        target: `≥ ${goal} flows/s`,
        pass: rate >= goal && load.serverErrors === 0,
        note:
          `P2 ${store.kind} throughput, WEB_CONCURRENCY=${processes}: ${options.concurrency} concurrent visitors for ${seconds.toFixed(0)} s, ${load.completed} flows completed, ${load.failed} failed${failures ? ` (${failures})` : ''}, ${load.serverErrors} with a 5xx; ` +
          `flow wall time p50 ${ms(loadWall.p50)} p95 ${ms(loadWall.p95)} (by step, client side, p50 ms: ${stepBreakdown(load.steps)}); server-side time per flow under load p50 ${ms(loadAdded.p50)} (queueing included; by route, p50 ms: ${routeBreakdown(loadStats)}; its waits on Discord and proxycheck p50 ${ms(summarize(loadStats.map((s) => s.outboundMs)).p50)}); ` +
          `CPU: product ${(serverCpu * 100).toFixed(0)}% of a core${processes > 1 ? ' (primary + workers)' : ''}, ${perFlow(serverCpuSeconds)} CPU per flow, ` +
          `${processes > 1 ? "the primary's" : 'its'} main thread ${(mainCpu * 100).toFixed(0)}%, bench process (load generator + emulators) ${(benchCpu * 100).toFixed(0)}%; emulator OAuth2 token bucket lifted; ${where}`,
      },
      {
        figure: `P2 server time per flow${label}`,
        engine: store.kind,
        value: `${ms(added.p50)} p50`,
        target: '≤ 10 ms p50',
        pass: added.p50 <= 10,
        note: `P2 ${store.kind} server time, WEB_CONCURRENCY=${processes}: ${added.n} flows one at a time after ${STEADY_WARMUP_FLOWS * processes} flows of warm-up (steady state); per flow, server handler time minus its calls to Discord/proxycheck: p50 ${ms(added.p50)}, p95 ${ms(added.p95)}; whole flow as the client sees it p50 ${ms(wall.p50)}; by route (p50 ms): ${routeBreakdown(serialStats)}; ${serverTimeBySpeed(serialStats, serial.speedByFlow)}; before the phase ${describeMachineSpeed(speedBefore)}, after it ${describeMachineSpeed(speedAfter)}; the same number of flows just after start (40 flows of warm-up, code not yet optimised): p50 ${ms(cold.p50)}, p95 ${ms(cold.p95)}`,
      },
    ];
  } finally {
    await product?.stop();
    await discord.close();
  }
}
