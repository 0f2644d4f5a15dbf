import type { REST } from '@discordjs/rest';
import { Routes, type RESTPutAPIGuildMemberJSONBody } from 'discord-api-types/v10';
import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import type { Logger } from '../../logger';
import { appendAudit } from '../../modules/audit/audit.repository';
import type { OutboxRepository } from '../../modules/outbox/outbox.repository';
import type { ManagedRole, OutboxEntry } from '../../modules/outbox/outbox.types';
import { openSecret } from '../../modules/outbox/sealed-secret';
import type { GuildDirectory } from '../guild-directory';
import { classifyDiscordError, nextRetryDelayMs } from './outbox-errors';

type Claimed = OutboxEntry & { sealedSecret: string | null };

const MAX_MESSAGE = 1900;
/** How long the outbox keeps trying to record a result while the database is away (~10 s in all). */
const PERSIST_RETRY_DELAYS_MS = [100, 400, 1500, 3000, 5000];

export interface OutboxWorkerStats {
  done: number;
  retried: number;
  failed: number;
  /** 4xx answers from Discord (Discord bans bots with too many) */
  invalidRequests: number;
}

/**
 * Runs queued Discord actions with retries and backoff. @discordjs/rest queues every
 * call by Discord's rate-limit buckets, so a burst never goes over the limits; log lines
 * waiting together are merged into as few messages as possible.
 */
export function createOutboxWorker(deps: {
  database: Database;
  outbox: OutboxRepository;
  rest: REST;
  directory: GuildDirectory;
  sealKey: Buffer;
  clock: Clock;
  logger: Logger;
  batchSize?: number;
  pollMs?: number;
  concurrency?: number;
  onFinished?: (entry: OutboxEntry, result: 'done' | 'retry' | 'failed') => void;
}) {
  const batchSize = deps.batchSize ?? 50;
  const pollMs = deps.pollMs ?? 1000;
  const concurrency = deps.concurrency ?? 10;
  const stats: OutboxWorkerStats = { done: 0, retried: 0, failed: 0, invalidRequests: 0 };
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopped = true;
  let again = false;
  let idle: Promise<void> = Promise.resolve();

  const roleIds = (roles: ManagedRole[]) => Promise.all(roles.map((r) => deps.directory.roleId(r)));

  /**
   * The REST client learns a route's rate-limit bucket from its first answer; calls sent
   * in parallel before that can overrun it (and meet a 429). So the first call of each
   * kind runs alone, and the others wait for it.
   */
  const warmed = new Map<OutboxEntry['kind'], Promise<void>>();
  async function executeWarm(entry: Claimed): Promise<void> {
    const warming = warmed.get(entry.kind);
    if (warming) {
      await warming.catch(() => undefined);
      return execute(entry);
    }
    const first = execute(entry);
    warmed.set(entry.kind, first);
    try {
      await first;
    } catch (error) {
      warmed.delete(entry.kind); // not learnt yet: the next one warms up again
      throw error;
    }
  }

  async function execute(entry: Claimed): Promise<void> {
    const guildId = deps.directory.guildId;
    const userId = entry.discordId ?? '';
    const payload = entry.payload;
    switch (entry.kind) {
      case 'add_guild_member': {
        if (!entry.sealedSecret) throw new Error('the access token is gone (already used)');
        const roles = await roleIds((payload.roles as ManagedRole[]) ?? []);
        const body: RESTPutAPIGuildMemberJSONBody = { access_token: openSecret(deps.sealKey, entry.sealedSecret), roles };
        const added = await deps.rest.put(Routes.guildMember(guildId, userId), { body });
        // 204 (no body): already a member, so the roles are added one by one
        if (!added) for (const roleId of roles) await deps.rest.put(Routes.guildMemberRole(guildId, userId, roleId));
        return;
      }
      case 'add_role':
        await deps.rest.put(Routes.guildMemberRole(guildId, userId, await deps.directory.roleId(payload.role as ManagedRole)));
        return;
      case 'remove_role':
        await deps.rest.delete(Routes.guildMemberRole(guildId, userId, await deps.directory.roleId(payload.role as ManagedRole)));
        return;
      case 'kick':
        await deps.rest.delete(Routes.guildMember(guildId, userId), { reason: String(payload.reason ?? 'Gatekeeper') });
        return;
      case 'ban':
        await deps.rest.put(Routes.guildBan(guildId, userId), { body: {}, reason: String(payload.reason ?? 'Gatekeeper') });
        return;
      case 'log_message':
        await postLog([String(payload.text ?? '')]);
        return;
    }
  }

  async function postLog(lines: string[]): Promise<void> {
    const channelId = await deps.directory.channelId('logs');
    const chunks: string[] = [];
    for (const line of lines.map((l) => l.slice(0, MAX_MESSAGE))) {
      const last = chunks.at(-1);
      if (last !== undefined && last.length + line.length + 1 <= MAX_MESSAGE) chunks[chunks.length - 1] = `${last}\n${line}`;
      else chunks.push(line);
    }
    for (const content of chunks) {
      await deps.rest.post(Routes.channelMessages(channelId), { body: { content, allowed_mentions: { parse: [] } } });
    }
  }

  /**
   * The outbox's own writes, retried through a database blip (a restarted server, a
   * dropped connection): an action Discord has done but the outbox failed to record would
   * otherwise sit 'running' until its lease ends and then run a second time.
   */
  async function persist<T>(write: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (error) {
        if (attempt >= PERSIST_RETRY_DELAYS_MS.length + 1 || stopped) throw error;
        await new Promise((resolve) => setTimeout(resolve, PERSIST_RETRY_DELAYS_MS[attempt - 1]));
      }
    }
  }

  async function settle(entry: Claimed, error: unknown): Promise<void> {
    const failure = classifyDiscordError(error);
    if (failure.status && failure.status >= 400 && failure.status < 500) stats.invalidRequests++;
    const retryAt = failure.kind === 'permanent' ? null : new Date(deps.clock.now().getTime() + nextRetryDelayMs(entry.attempts));
    const result = await persist(() => deps.outbox.markFailed(deps.database.db, entry.id, failure.message, { retryAt }));
    if (result === 'failed') {
      stats.failed++;
      deps.logger.error({ outboxId: entry.id, kind: entry.kind, error: failure.message }, 'Discord action failed for good');
      await deps.database.db.transaction(async (tx) => {
        await appendAudit(tx, { actor: { type: 'system', id: 'outbox', name: 'Discord outbox' }, action: 'outbox.failed', targetType: 'member', targetId: entry.discordId, details: { outboxId: entry.id, kind: entry.kind, error: failure.message, attempts: entry.attempts } }, deps.clock.now());
        if (entry.kind !== 'log_message') {
          await deps.outbox.enqueue(tx, { kind: 'log_message', event: 'outbox_failed', discordId: entry.discordId ?? undefined, text: `❗ Could not ${entry.kind.replace(/_/g, ' ')} for <@${entry.discordId}>: ${failure.message}. Staff can retry it from the dashboard.` });
        }
      });
    } else {
      stats.retried++;
      deps.logger.warn({ outboxId: entry.id, kind: entry.kind, attempt: entry.attempts, error: failure.message }, 'Discord action will be retried');
    }
    deps.onFinished?.(entry, result);
  }

  async function runBatch(): Promise<number> {
    const claimed = await deps.outbox.claimDue(deps.database.db, batchSize, 120_000);
    if (claimed.length === 0) return 0;
    const logs = claimed.filter((e) => e.kind === 'log_message');
    const actions = claimed.filter((e) => e.kind !== 'log_message');

    // actions for one member run in order (join before roles); different members run in parallel
    const byMember = new Map<string, Claimed[]>();
    for (const entry of actions) byMember.set(entry.discordId ?? `#${entry.id}`, [...(byMember.get(entry.discordId ?? `#${entry.id}`) ?? []), entry]);
    const queues = [...byMember.values()];
    const workers = Array.from({ length: Math.min(concurrency, queues.length) }, async () => {
      for (let queue = queues.shift(); queue; queue = queues.shift()) {
        for (const [index, entry] of queue.entries()) {
          try {
            await executeWarm(entry);
          } catch (error) {
            await settle(entry, error);
            // later actions for this member wait for the failed one (a role before the join would fail)
            for (const rest of queue.slice(index + 1)) await persist(() => deps.outbox.postpone(deps.database.db, rest.id, new Date(deps.clock.now().getTime() + 5_000)));
            break;
          }
          // done at Discord: only the bookkeeping is left, and a failure there must not run it again
          await persist(() => deps.outbox.markDone(deps.database.db, entry.id));
          stats.done++;
          deps.onFinished?.(entry, 'done');
        }
      }
    });
    await Promise.all(workers);

    if (logs.length > 0) {
      let posted = false;
      try {
        await postLog(logs.map((e) => String(e.payload.text ?? '')));
        posted = true;
      } catch (error) {
        for (const entry of logs) await settle(entry, error);
      }
      if (posted) {
        for (const entry of logs) {
          await persist(() => deps.outbox.markDone(deps.database.db, entry.id));
          stats.done++;
          deps.onFinished?.(entry, 'done');
        }
      }
    }
    return claimed.length;
  }

  async function loop(): Promise<void> {
    if (running) {
      again = true;
      return;
    }
    running = true;
    idle = (async () => {
      try {
        do {
          again = false;
          while (!stopped && (await runBatch()) > 0) again = false;
        } while (again && !stopped);
      } catch (error) {
        deps.logger.error({ err: error }, 'outbox worker error');
      } finally {
        running = false;
        if (!stopped) timer = setTimeout(() => void loop(), pollMs);
      }
    })();
    await idle;
  }

  return {
    stats,
    /** processes everything due now (tests, drills) */
    async drain(): Promise<void> {
      while ((await runBatch()) > 0) {
        /* keep going */
      }
    },
    start() {
      if (!stopped) return;
      stopped = false;
      void loop();
    },
    /** run now rather than at the next poll (a visitor just finished) */
    nudge() {
      if (stopped) return;
      if (timer) clearTimeout(timer);
      void loop();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await idle;
    },
  };
}

export type OutboxWorker = ReturnType<typeof createOutboxWorker>;
