import fs from 'node:fs';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';

/**
 * The only reader of process.env. Every setting the product has is declared here,
 * validated once at boot, and handed to the rest of the code as a typed object.
 */

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const csv = <T extends string>(values: readonly [T, ...T[]]) =>
  z
    .string()
    .transform((s) => s.split(',').map((p) => p.trim()).filter(Boolean))
    .pipe(z.array(z.enum(values)).min(1));

export const SERVICE_ROLES = ['web', 'bot', 'jobs'] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];

const postgresUrl = z
  .string()
  .refine((s) => /^postgres(ql)?:\/\//.test(s), 'must be a postgres:// or postgresql:// URL');

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: z.url().optional(),
  SERVICES: csv(SERVICE_ROLES).default(['web', 'bot', 'jobs']),
  WEB_CONCURRENCY: z
    .union([z.literal('auto'), z.coerce.number().int().min(1).max(64)], { error: "must be a whole number from 1 to 64, or 'auto'" })
    .default(1),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: postgresUrl.optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  DATABASE_CONNECT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  BACKUP_DAILY: bool.default(false),
  BACKUP_KEEP: z.coerce.number().int().min(1).max(365).default(7),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  IP_HASH_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  TRUST_PROXY: z.string().default('false'),
  DISCORD_BOT_TOKEN: z.string().min(1).optional(),
  DISCORD_CLIENT_ID: z.string().regex(/^\d{15,21}$/, 'must be a Discord snowflake').optional(),
  DISCORD_CLIENT_SECRET: z.string().min(1).optional(),
  DISCORD_GUILD_ID: z.string().regex(/^\d{15,21}$/, 'must be a Discord snowflake').optional(),
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
  DEV_ALLOWED_ORIGINS: z
    .string()
    .transform((s) => s.split(',').map((p) => p.trim()).filter(Boolean))
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
  return { ...env, sandbox, dataDir: path.resolve(env.DATA_DIR) };
}

/** The process's environment: `.env` first, then process.env on top. */
export function readEnv(): Env {
  return parseEnv({ ...loadDotenv(), ...process.env });
}
