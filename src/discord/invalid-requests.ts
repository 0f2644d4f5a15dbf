/**
 * Discord's invalid request limit ("Rate Limits" → "Invalid Request Limit" in Discord's
 * docs): an IP address whose answers include 10,000 of 401, 403 or 429 within 10 minutes
 * is banned for a while, and the bot with it. 429s whose X-RateLimit-Scope is `shared`
 * are not counted by Discord, so not here either.
 */
export const DISCORD_INVALID_REQUEST_LIMIT = { limit: 10_000, windowMs: 10 * 60_000 } as const;

/** Where an invalid answer came from, so an owner can tell which part of the product caused it. */
export const ROUTE_FAMILIES = ['oauth-token', 'users-me', 'guild-members', 'member-roles', 'messages', 'interactions', 'other'] as const;
export type RouteFamily = (typeof ROUTE_FAMILIES)[number];

/** The family of a Discord API path (with or without `/api/v10`, query ignored). */
export function routeFamily(path: string): RouteFamily {
  const route = path.replace(/^.*?\/api(?:\/v\d+)?(?=\/)/, '').split('?')[0]!;
  if (/^\/oauth2\/token/.test(route)) return 'oauth-token';
  if (/^\/users\/@me$/.test(route) || /^\/users\/%40me$/.test(route)) return 'users-me';
  if (/^\/guilds\/[^/]+\/members\/[^/]+\/roles\//.test(route)) return 'member-roles';
  if (/^\/guilds\/[^/]+\/(members|bans)\b/.test(route)) return 'guild-members';
  if (/^\/channels\/[^/]+\/messages\b/.test(route)) return 'messages';
  if (/^\/(interactions|webhooks)\//.test(route)) return 'interactions';
  return 'other';
}

/** Whether Discord counts this answer toward the limit. */
export function countsAsInvalid(status: number, scope?: string | null): boolean {
  if (status === 429) return scope !== 'shared';
  return status === 401 || status === 403;
}

export interface InvalidRequestsSnapshot {
  /** invalid answers in the last `windowMs` */
  total: number;
  limit: number;
  windowMs: number;
  byFamily: Record<RouteFamily, number>;
}

/**
 * A sliding 10-minute count of invalid answers, per second and family (at most 600 slots,
 * whatever the traffic). One per process: every Discord client of the process records into
 * it (`record`), and the budget gate reads it.
 */
export function createInvalidRequests(options: { limit?: number; windowMs?: number; now?: () => number } = {}) {
  const limit = options.limit ?? DISCORD_INVALID_REQUEST_LIMIT.limit;
  const windowMs = options.windowMs ?? DISCORD_INVALID_REQUEST_LIMIT.windowMs;
  const now = options.now ?? Date.now;
  const slotMs = Math.max(1, Math.floor(windowMs / 600));
  /** slot start (ms) → counts per family, oldest first */
  const slots = new Map<number, Map<RouteFamily, number>>();

  function prune(at: number): void {
    const oldest = at - windowMs;
    for (const start of slots.keys()) {
      if (start + slotMs > oldest) break;
      slots.delete(start);
    }
  }

  return {
    limit,
    windowMs,
    /** One answer from Discord; only the ones Discord counts are kept. Returns whether it counted. */
    record(family: RouteFamily, status: number, scope?: string | null): boolean {
      if (!countsAsInvalid(status, scope)) return false;
      const at = now();
      prune(at);
      const start = at - (at % slotMs);
      let slot = slots.get(start);
      if (!slot) slots.set(start, (slot = new Map()));
      slot.set(family, (slot.get(family) ?? 0) + 1);
      return true;
    },
    /** Invalid answers in the window. */
    total(): number {
      prune(now());
      let sum = 0;
      for (const slot of slots.values()) for (const n of slot.values()) sum += n;
      return sum;
    },
    /** The share of the limit used, 0 … 1 (or more). */
    usage(): number {
      return this.total() / limit;
    },
    snapshot(): InvalidRequestsSnapshot {
      prune(now());
      const byFamily = Object.fromEntries(ROUTE_FAMILIES.map((f) => [f, 0])) as Record<RouteFamily, number>;
      let total = 0;
      for (const slot of slots.values())
        for (const [family, n] of slot) {
          byFamily[family] += n;
          total += n;
        }
      return { total, limit, windowMs, byFamily };
    },
  };
}

export type InvalidRequests = ReturnType<typeof createInvalidRequests>;
