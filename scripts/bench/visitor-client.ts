import crypto from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { DiscordEmulator } from '../../src/discord-emulator';
import { computeFingerprintHash } from '../../src/modules/fingerprint';
import type { FingerprintData } from '../../src/shared/fingerprint';

/**
 * A lean visitor for load generation: plain node:http on a keep-alive agent (supertest
 * or fetch would cost the load generator more CPU than the server under test), a cookie
 * jar per visitor, and its own client address in X-Forwarded-For (the product runs with
 * TRUST_PROXY=loopback), as a browser behind the site's reverse proxy would have.
 */

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface SiteTarget {
  url: string;
  agent: http.Agent;
}

export function createSiteTarget(url: string, maxSockets = 256): SiteTarget {
  return { url, agent: new http.Agent({ keepAlive: true, maxSockets }) };
}

/** A request's socket reset before any answer came back, on a kept-alive connection the server had already closed. */
class StaleConnectionError extends Error {}

function sendOnce(
  target: SiteTarget,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; timeoutMs?: number },
  fresh = false,
): Promise<HttpAnswer> {
  const base = new URL(target.url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    // `fresh`: a connection of its own, never one the agent kept
    const req = http.request(
      { host: base.hostname, port: base.port, method, path, headers, agent: fresh ? false : target.agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(options.timeoutMs ?? 60_000, () =>
      req.destroy(new Error(`${method} ${path}: no answer within ${options.timeoutMs ?? 60_000} ms`)),
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      reject(stale ? new StaleConnectionError(error.message, { cause: error }) : error);
    });
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/**
 * One request, as a browser sends it: a kept-alive connection that the server closed while idle
 * (its keep-alive timeout) at the moment the request went out is reset with nothing answered, and
 * the browser sends the request again on a new connection (Chromium and Firefox do, once). Node's
 * agent does not, which made a crowd's client see resets no browser would show. The second try
 * opens a connection of its own: the agent would hand it another kept one, which under a loaded
 * client's late timers can be closed by the server as well (a browser checks an idle connection
 * is still open before using it).
 */
export async function send(
  target: SiteTarget,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<HttpAnswer> {
  try {
    return await sendOnce(target, method, path, options);
  } catch (error) {
    if (!(error instanceof StaleConnectionError)) throw error;
    return sendOnce(target, method, path, options, true);
  }
}

const SCREENS = ['1920x1080x24', '2560x1440x24', '1366x768x24', '1536x864x24', '390x844x32', '414x896x32', '1440x900x30', '3840x2160x24'];
const TIMEZONES = ['Europe/Amsterdam', 'Europe/Berlin', 'America/New_York', 'America/Chicago', 'Europe/London', 'Asia/Tokyo'];
const LANGUAGES = ['en-US,en', 'de-DE,de,en', 'nl-NL,nl,en', 'en-GB,en', 'ja-JP,ja'];
const PLATFORMS = ['Win32~Mozilla/5.0', 'MacIntel~Mozilla/5.0', 'Linux x86_64~Mozilla/5.0', 'iPhone~Mozilla/5.0'];

/**
 * A plausible browser fingerprint; the same `device` gives the same fingerprint (a shared
 * device). Components vary like real ones: the canvas and audio stack are per device,
 * WebGL one of 40 GPUs, fonts one of 30 lists (a quarter the Windows default), screen,
 * time zone, language and platform from short lists.
 */
export function buildBenchFingerprint(device: string, overrides: Partial<FingerprintData> = {}) {
  const digest = crypto.createHash('sha256').update(device).digest();
  const pick = <T>(list: readonly T[], byte: number) => list[digest[byte]! % list.length]!;
  const h = (part: string) => crypto.createHash('sha256').update(`${device}:${part}`).digest('hex').slice(0, 32);
  const fingerprintData: FingerprintData = {
    canvas: h('canvas'),
    webgl: `Google Inc.~ANGLE (GPU model ${digest[1]! % 40})~EXT_a,EXT_b`,
    audio: `124.04347${h('audio').replace(/\D/g, '').slice(0, 8)}`,
    screen: pick(SCREENS, 2),
    fonts: digest[3]! % 4 === 0 ? 'Arial,Calibri,Cambria,Consolas,Segoe UI,Verdana' : `Arial,Verdana,font-set-${digest[4]! % 30}`,
    timezone: pick(TIMEZONES, 5),
    language: pick(LANGUAGES, 6),
    platform: pick(PLATFORMS, 7),
    hardware: `cores:${2 ** (1 + (digest[8]! % 4))}~memory:8~touch:0`,
    ...overrides,
  };
  return { fingerprintData, fingerprintHash: computeFingerprintHash(fingerprintData) };
}

/**
 * A distinct public-looking address per visitor number, from 198.18.0.0/15 (RFC 2544,
 * reserved for benchmarks: never routed, unknown to proxycheck, not in the offline lists,
 * but not a private range the VPN check would skip). Consecutive visitors land in
 * different /24 networks (512 of them), a few hundred apart share one.
 */
export function visitorAddress(n: number): string {
  const network = n % 512;
  const host = (Math.floor(n / 512) % 254) + 1;
  return `198.${18 + (network >> 8)}.${network & 255}.${host}`;
}

export class Visitor {
  private readonly cookies = new Map<string, string>();
  /** every status this visitor received, by step */
  readonly statuses: Record<string, number> = {};
  /** how long each step's requests took as the client saw them (ms, summed over a step's repeats) */
  readonly stepMs: Record<string, number> = {};

  constructor(
    readonly target: SiteTarget,
    readonly address: string,
    readonly flowId?: string,
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.address, ...extra };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (this.flowId) headers['x-bench-flow'] = this.flowId;
    return headers;
  }

  private keep(answer: HttpAnswer): HttpAnswer {
    const set = answer.headers['set-cookie'] ?? [];
    for (const cookie of set) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      if (eq > 0) this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    return answer;
  }

  private record(step: string, startedAt: number, answer: HttpAnswer): HttpAnswer {
    this.statuses[step] = answer.status;
    this.stepMs[step] = (this.stepMs[step] ?? 0) + performance.now() - startedAt;
    return this.keep(answer);
  }

  async get(step: string, path: string, timeoutMs?: number): Promise<HttpAnswer> {
    const startedAt = performance.now();
    return this.record(step, startedAt, await send(this.target, 'GET', path, { headers: this.headers(), timeoutMs }));
  }

  async post(step: string, path: string, body?: unknown, timeoutMs?: number): Promise<HttpAnswer> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const startedAt = performance.now();
    return this.record(
      step,
      startedAt,
      await send(this.target, 'POST', path, {
        headers: this.headers(text === undefined ? {} : { 'content-type': 'application/json' }),
        body: text,
        timeoutMs,
      }),
    );
  }
}

export interface FlowOutcome {
  /** where the callback sent the visitor ('/rules' on success) */
  landedOn: string | null;
  /** the rules were confirmed (200) */
  completed: boolean;
  /** the first step that answered something unexpected */
  failedStep: string | null;
  statuses: Record<string, number>;
  /** client-side time per step (ms) */
  stepMs: Record<string, number>;
  /** wall time of the whole flow, client side */
  elapsedMs: number;
  /** the callback answered (a 303), whatever the destination */
  callbackAnswered: boolean;
}

/**
 * One complete website verification, as a browser does it: consent token → consent with
 * the fingerprint → /oauth/start → (Discord signs the user in: the emulator issues the
 * code) → /oauth/callback → rules confirmed.
 */
export async function runVisitorFlow(
  target: SiteTarget,
  emulator: DiscordEmulator,
  input: {
    userId: string;
    address: string;
    fingerprint: ReturnType<typeof buildBenchFingerprint>;
    flowId?: string;
    confirmRules?: boolean;
    timeoutMs?: number;
  },
): Promise<FlowOutcome> {
  const started = performance.now();
  const visitor = new Visitor(target, input.address, input.flowId);
  const outcome = (
    failedStep: string | null,
    landedOn: string | null = null,
    completed = false,
    callbackAnswered = false,
  ): FlowOutcome => ({
    landedOn,
    completed,
    failedStep,
    statuses: visitor.statuses,
    stepMs: visitor.stepMs,
    elapsedMs: performance.now() - started,
    callbackAnswered,
  });
  const t = input.timeoutMs;

  const token = await visitor.get('token', '/api/consent/token', t);
  if (token.status !== 200) return outcome('token');
  const consent = await visitor.post(
    'consent',
    '/api/consent',
    { consent: true, token: (JSON.parse(token.body) as { token: string }).token, ...input.fingerprint },
    t,
  );
  if (consent.status !== 200) return outcome('consent');
  const start = await visitor.get('start', '/oauth/start', t);
  const location = start.headers.location;
  if (start.status !== 303 || !location || location === '/') return outcome('start');
  const authorize = new URL(location);
  const { code, state } = emulator.authorizeAs(input.userId, authorize);
  const query = new URLSearchParams({ code, state });
  let callback = await visitor.get('callback', `/oauth/callback?${query.toString()}`, t);
  // a slow exchange answers 200 "Finishing sign-in…", which a browser refreshes to /oauth/finish every 2 s
  for (let polls = 0; callback.status === 200 && polls < 60; polls++) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    callback = await visitor.get('callback', '/oauth/finish', t);
  }
  const landedOn = callback.headers.location ?? null;
  if (callback.status !== 303 || landedOn !== '/rules') return outcome('callback', landedOn, false, callback.status === 303);
  if (input.confirmRules === false) return outcome(null, landedOn, true, true);
  const rules = await visitor.post('rules', '/api/rules/confirm', undefined, t);
  if (rules.status !== 200) return outcome('rules', landedOn, false, true);
  return outcome(null, landedOn, true, true);
}
