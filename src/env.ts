import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';
import { DEFAULT_RETENTION_DAYS } from './shared/policy';

/**
 * The only reader of process.env. Every setting the product has is declared here,
 * validated once at boot, and handed to the rest of the code as a typed object.
 */

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const csv = <T extends string>(values: readonly [T, ...T[]]) =>
  z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(values)).min(1));

export const SERVICE_ROLES = ['web', 'bot', 'jobs'] as const;

/** Names Express's `trust proxy` understands for whole address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * The widest subnet a proxy list may name, by address family. A proxy tier is a few
 * addresses or a private network: 10.0.0.0/8 is the widest private IPv4 range, and a
 * provider's IPv6 allocation is a /32 at the widest (fc00::/7, unique-local, is the
 * `uniquelocal` name). Anything wider covers strangers: `0.0.0.0/1,128.0.0.0/1` is every
 * IPv4 address, which would believe every client's own X-Forwarded-For.
 */
const WIDEST_PROXY_PREFIX = { 4: 8, 6: 32 } as const;

/** Why a TRUST_PROXY entry is refused, or null when it names a proxy address or subnet. */
function proxyEntryProblem(entry: string): string | null {
  if (PROXY_RANGE_NAMES.has(entry)) return null;
  const [address, bits, extra] = entry.split('/');
  const family = address ? net.isIP(address) : 0;
  if (extra !== undefined || (family !== 4 && family !== 6)) return `'${entry}' is none of these`;
  if (bits === undefined) return null;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128)) return `'${entry}' is none of these`;
  const widest = WIDEST_PROXY_PREFIX[family];
  if (Number(bits) < widest)
    return `'${entry}' is wider than a proxy network (at most /${widest} for IPv${family}) and would trust clients' own X-Forwarded-For`;
  return null;
}

/**
 * `TRUST_PROXY`: which proxies in front of the product may say who the client is.
 * `false` (the socket's peer is the client), a hop count (`1`: one proxy such as a cloud
 * load balancer), or a list of trusted proxy addresses/subnets (`loopback, 10.0.0.0/8`).
 * The client is then the right-most address in X-Forwarded-For that is not trusted.
 * `true` is refused: it believes the left-most X-Forwarded-For entry, which the client
 * writes itself, so anyone could pick their own address and escape every per-address limit.
 */
const trustProxy = z.string().transform((value, ctx): false | number | string => {
  const v = value.trim().toLowerCase();
  if (v === 'false' || v === '0') return false;
  if (v === 'true') {
    ctx.addIssue({
      code: 'custom',
      message:
        "'true' would believe a client-written X-Forwarded-For; use a hop count (e.g. 1 behind one load balancer) or the proxies' addresses (e.g. loopback, or loopback, 10.0.0.0/8)",
    });
    return z.NEVER;
  }
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > 10) {
      ctx.addIssue({ code: 'custom', message: 'a hop count must be 0 to 10' });
      return z.NEVER;
    }
    return hops;
  }
  const entries = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const problem = entries.map(proxyEntryProblem).find((p) => p !== null);
  if (entries.length === 0 || problem) {
    ctx.addIssue({
      code: 'custom',
      message: `must be false, a hop count, or a list of proxy addresses/subnets (loopback, linklocal, uniquelocal, 10.0.0.0/8 …)${problem ? `; ${problem}` : ''}`,
    });
    return z.NEVER;
  }
  return entries.join(', ');
});

/**
 * `PUBLIC_URL`: the site's origin as visitors type it, read the way a browser reads it and
 * kept as its canonical origin (lower-case scheme and host, no trailing slash), because
 * every address the product builds (the OAuth redirect, cookie security, the HTTPS checks
 * below) is this value plus a path. Only http and https are sites; a path, query, fragment
 * or credentials would be silently dropped or doubled by those joins, so each is refused.
 */
const publicUrl = z.string().transform((value, ctx): string => {
  const refuse = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return refuse(`'${value}' is not a URL; write the site's address with its scheme, e.g. https://verify.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse(
      `must start with https:// or http://, e.g. https://verify.example.com ('${url.protocol}' is not a web address${/^[a-z0-9.-]+:$/i.test(url.protocol) && !value.includes('//') ? '; the scheme is missing' : ''})`,
    );
  }
  if (url.username || url.password) return refuse('must not carry a user name or password');
  if (url.pathname !== '/' || url.search || url.hash)
    return refuse(`must be the site's origin only, with no path, query or fragment: use ${url.origin}`);
  return url.origin;
});

const postgresUrl = z.string().refine((s) => /^postgres(ql)?:\/\//.test(s), 'must be a postgres:// or postgresql:// URL');

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: publicUrl.optional(),
  SERVICES: csv(SERVICE_ROLES).default(['web', 'bot', 'jobs']),
  WEB_CONCURRENCY: z
    .union([z.literal('auto'), z.coerce.number().int().min(1).max(64)], { error: "must be a whole number from 1 to 64, or 'auto'" })
    .default(1),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: postgresUrl.optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  DATABASE_CONNECT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(6),
  RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(DEFAULT_RETENTION_DAYS),
  BACKUP_DAILY: bool.default(false),
  BACKUP_KEEP: z.coerce.number().int().min(1).max(365).default(7),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  IP_HASH_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  TRUST_PROXY: trustProxy.default(false),
  /** lets PUBLIC_URL=https://… start with TRUST_PROXY=false (e.g. TLS terminated by something that sends no X-Forwarded-Proto) */
  ALLOW_INSECURE_PROXY_SETUP: bool.default(false),
  /** bearer token for GET /metrics; without it /metrics answers loopback callers only */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  DISCORD_BOT_TOKEN: z.string().min(1).optional(),
  DISCORD_CLIENT_ID: z
    .string()
    .regex(/^\d{15,21}$/, 'must be a Discord snowflake')
    .optional(),
  DISCORD_CLIENT_SECRET: z.string().min(1).optional(),
  DISCORD_GUILD_ID: z
    .string()
    .regex(/^\d{15,21}$/, 'must be a Discord snowflake')
    .optional(),
  DISCORD_API_URL: z.url().default('https://discord.com/api'),
  DISCORD_VERIFIED_ROLE: z.string().min(1).default('Verified'),
  DISCORD_LIMITED_ROLE: z.string().min(1).default('Limited Access'),
  DISCORD_UNVERIFIED_ROLE: z.string().min(1).default('Unverified'),
  DISCORD_STAFF_ROLE: z.string().min(1).default('Staff'),
  DISCORD_VERIFICATION_CHANNEL: z.string().min(1).default('verification'),
  DISCORD_LOGS_CHANNEL: z.string().min(1).default('logs'),
  CERTAIN_ALT_ACTION: z.enum(['none', 'kick', 'ban']).default('none'),
  PROXYCHECK_API_KEY: z.string().min(1).optional(),
  PROXYCHECK_URL: z.url().default('https://proxycheck.io/v2'),
  PROXYCHECK_TIMEOUT_MS: z.coerce.number().int().min(100).max(30000).default(2500),
  VPN_CHECK_FAILURE: z.enum(['allow', 'limited', 'deny']).default('allow'),
  VPN_CACHE_HOURS: z.coerce.number().int().min(0).max(720).default(24),
  SANDBOX: bool.optional(),
  SANDBOX_DISCORD_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  /** reliability drills only: SIGUSR2 makes the embedded database's worker thread crash */
  DRILL_HOOKS: bool.default(false),
  DEV_ALLOWED_ORIGINS: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.url()))
    .default([]),
});

export type Env = z.infer<typeof envSchema> & {
  /** true when no Discord bot token is configured (or SANDBOX=true): the emulators run in-process */
  sandbox: boolean;
  /** absolute path of DATA_DIR */
  dataDir: string;
};

export class EnvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvError';
  }
}

/** Reads `.env` (if present) under the real environment; the real environment wins. */
export function loadDotenv(file = path.resolve('.env')): Record<string, string> {
  if (!fs.existsSync(file)) return {};
  return parseDotenv(fs.readFileSync(file));
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = source[key];
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    const issue = result.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    throw new EnvError(`Invalid environment variable ${name}: ${issue?.message ?? 'invalid value'}`);
  }
  const env = result.data;
  const sandbox = env.SANDBOX ?? !env.DISCORD_BOT_TOKEN;
  if (!sandbox) {
    for (const name of ['DISCORD_CLIENT_ID', 'DISCORD_CLIENT_SECRET', 'DISCORD_GUILD_ID'] as const) {
      if (!env[name]) throw new EnvError(`Invalid environment variable ${name}: required when DISCORD_BOT_TOKEN is set`);
    }
  }
  if (!sandbox && !env.PUBLIC_URL) {
    // without it the OAuth redirect would be built from the request's Host header, which the client writes
    throw new EnvError(
      'Invalid environment variable PUBLIC_URL: required outside sandbox mode (the URL visitors use, e.g. https://verify.example.com)',
    );
  }
  if (env.PUBLIC_URL?.startsWith('https://') && env.TRUST_PROXY === false && !env.ALLOW_INSECURE_PROXY_SETUP) {
    // behind a TLS proxy the product sees plain http: Secure cookies are never set and
    // same-origin checks fail, so setup, login and verification would all fail silently
    throw new EnvError(
      'Invalid environment variable TRUST_PROXY: PUBLIC_URL is https:// but TRUST_PROXY=false, so the TLS proxy in front is not believed; set TRUST_PROXY to the proxy (loopback, a hop count, or its subnet), or ALLOW_INSECURE_PROXY_SETUP=true if that is really intended',
    );
  }
  if (sandbox && env.PORT !== 0 && env.PORT === env.SANDBOX_DISCORD_PORT) {
    throw new EnvError(
      `Invalid environment variable SANDBOX_DISCORD_PORT: it is ${env.PORT}, the same as PORT; the sandbox's Discord needs a port of its own (e.g. ${env.PORT + 1}, or 0 for any free port)`,
    );
  }
  return { ...env, sandbox, dataDir: path.resolve(env.DATA_DIR) };
}

/** The process's environment: `.env` first, then process.env on top. */
export function readEnv(): Env {
  return parseEnv({ ...loadDotenv(), ...process.env });
}
