import { and, desc, eq, gte, inArray, or, sql, isNull, lt } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { discordOutbox, OUTBOX_KINDS, OUTBOX_PRIORITIES } from '../../db/schema';
import { sealSecret } from './sealed-secret';
import type { DiscordAction, OutboxEntry, OutboxPort } from './outbox.types';
import { idArray } from '../../db/id-array';

type Row = typeof discordOutbox.$inferSelect;

function toEntry(row: Row): OutboxEntry {
  return {
    id: row.id,
    kind: row.kind,
    discordId: row.discordId,
    payload: row.payload as Record<string, unknown>,
    hasSecret: row.sealedSecret !== null,
    status: row.status,
    priority: OUTBOX_PRIORITIES[row.priority] ?? 'bulk',
    attempts: row.attempts,
    maxAttempts: row.maxAttempts,
    nextAttemptAt: row.nextAttemptAt,
    lastError: row.lastError,
    createdAt: row.createdAt,
    completedAt: row.completedAt,
  };
}

/** Splits an action into its stored parts; the access token is sealed, never stored in clear. */
function toRow(action: DiscordAction, key: Buffer) {
  return { ...toStoredAction(action, key), priority: OUTBOX_PRIORITIES.indexOf(action.priority ?? 'bulk') };
}

function toStoredAction(action: DiscordAction, key: Buffer) {
  switch (action.kind) {
    case 'add_guild_member':
      return {
        kind: action.kind,
        discordId: action.discordId,
        payload: { roles: action.roles, reason: action.reason, ...(action.keepToken ? { keepToken: true } : {}) },
        sealedSecret: sealSecret(key, action.accessToken),
      };
    case 'add_role':
    case 'remove_role':
      return { kind: action.kind, discordId: action.discordId, payload: { role: action.role, reason: action.reason }, sealedSecret: null };
    case 'update_roles':
      return {
        kind: action.kind,
        discordId: action.discordId,
        payload: { add: action.add, remove: action.remove, reason: action.reason },
        sealedSecret: null,
      };
    case 'kick':
    case 'ban':
    case 'unban':
      return { kind: action.kind, discordId: action.discordId, payload: { reason: action.reason }, sealedSecret: null };
    case 'log_message':
      return {
        kind: action.kind,
        discordId: action.discordId ?? null,
        payload: {
          text: action.text,
          event: action.event ?? null,
          ...(action.card ? { card: action.card } : {}),
          ...(action.alarm ? { alarm: true } : {}),
        },
        sealedSecret: null,
      };
    case 'incident_actions':
      return {
        kind: action.kind,
        discordId: null,
        payload: { invitesDisabledUntil: action.invitesDisabledUntil, dmsDisabledUntil: action.dmsDisabledUntil, reason: action.reason },
        sealedSecret: null,
      };
    case 'role_connection':
      // a deletion's refresh token is sealed with this same key already (role_connection_grants)
      return { kind: action.kind, discordId: action.discordId, payload: {}, sealedSecret: action.sealedRefreshToken ?? null };
    case 'verification_level':
      return { kind: action.kind, discordId: null, payload: { raiseTo: action.raiseTo, reason: action.reason }, sealedSecret: null };
  }
}

/** How many actions the worker can start now: in all, or by kind. */
type ClaimSlots = number | Partial<Record<OutboxEntry['kind'], number>>;

/**
 * The claim's one statement: pick, lock and lease (see claimDue); null when there is no room for any action.
 *
 * Each kind with room is read on its own, through `discord_outbox_claim_idx` (kind, next_attempt_at, id; only
 * unfinished rows), in queue order and up to its room: the statement reads about as many rows as it claims,
 * whatever waits in the queue. During a raid thousands of joins wait for Discord's member bucket while the
 * worker has no room for another join; a claim for log lines then must not read them (it did: 3-7 ms a claim
 * in P2 with 1,000-2,500 waiting, all read and dropped). The statuses are written as SQL text, not
 * parameters, so that the one generic plan a write keeps on the embedded engine (pglite-prepared.ts) can use
 * the index's `status in (…)` condition.
 *
 * A row is claimable when it is pending and due, or running under a lease that ran out (its worker died); a
 * running row was due when it was claimed, so `next_attempt_at <= now` holds for both and bounds the scan.
 * Only a member's first unfinished action (log lines aside) is claimable: order per member. Within a kind,
 * interactive actions (priority 0) come before bulk ones, then queue order; the index's order is the same.
 */
function claimQuery(executor: Executor, slots: ClaimSlots, leaseMs: number, now: Date) {
  // a number is room for that many actions of any kinds, the first in queue order
  const room = typeof slots === 'number' ? Object.fromEntries(OUTBOX_KINDS.map((kind) => [kind, slots])) : slots;
  const free = Object.fromEntries(Object.entries(room).filter(([, n]) => (n ?? 0) > 0));
  const limit = typeof slots === 'number' ? slots : Object.values(free).reduce((sum: number, n) => sum + (n ?? 0), 0);
  // no room for any kind (`free` is empty exactly then)
  if (limit <= 0) return null;
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const taken = sql`select picked.id from jsonb_each_text(${JSON.stringify(free)}::jsonb) as free (kind, room)
    cross join lateral (
      select o.id, o.priority, o.next_attempt_at from ${discordOutbox} o
      where o.kind = free.kind and o.status in ('pending', 'running') and o.next_attempt_at <= ${now}
        and (o.status = 'pending' or o.locked_until is null or o.locked_until < ${now})
        and (o.kind = 'log_message' or o.discord_id is null or not exists (
          select 1 from ${discordOutbox} earlier
          where earlier.discord_id = o.discord_id and earlier.id < o.id and earlier.status in ('pending', 'running') and earlier.kind <> 'log_message'))
      order by o.priority, o.next_attempt_at, o.id
      limit free.room::int
      for update of o skip locked
    ) picked
    order by picked.priority, picked.next_attempt_at, picked.id
    limit ${limit}`;
  // the picked rows found by `id = any(array(…))`: by primary key whatever the plan (with `id in (…)`, the
  // generic plan hash-joined the picked ids against every row of the outbox, sent ones included: 17 ms at
  // 20,000 rows)
  return executor
    .update(discordOutbox)
    .set({ status: 'running', lockedUntil: leaseUntil, attempts: sql`${discordOutbox.attempts} + 1`, updatedAt: now })
    .where(sql`${discordOutbox.id} = any(array(${taken}))`)
    .returning();
}

/** One multi-row INSERT: ids follow the order of VALUES, so the queue keeps the order given. */
function insertActions(executor: Executor, actions: readonly DiscordAction[], key: Buffer, nextAttemptAt: Date) {
  return executor.insert(discordOutbox).values(actions.map((action) => ({ ...toRow(action, key), nextAttemptAt })));
}

/**
 * Raises the unfinished actions of members now waiting in front of a button to interactive: their new
 * action can run only after these (order per member), so these must not wait behind bulk work either (a
 * member's join, queued by the website during a raid, would otherwise hold up the role change they click
 * for). Log lines hold up nothing and stay as they were.
 */
function snowflake(id: string): string {
  if (!/^\d{1,20}$/.test(id)) throw new TypeError(`Not a Discord id: ${id}`);
  return id;
}

function raiseWaitingActions(executor: Executor, discordIds: readonly string[], now: Date) {
  const interactive = OUTBOX_PRIORITIES.indexOf('interactive');
  return executor
    .update(discordOutbox)
    .set({ priority: interactive, updatedAt: now })
    .where(
      and(
        // one text[] parameter whatever the number of members (one statement text; see idArray)
        sql`${discordOutbox.discordId} = any(${`{${discordIds.map(snowflake).join(',')}}`}::text[])`,
        inArray(discordOutbox.status, ['pending', 'running']),
        sql`${discordOutbox.kind} <> 'log_message'`,
        sql`${discordOutbox.priority} <> ${interactive}`,
      ),
    );
}

/**
 * When a parked action is due: never, until released. An action Discord refused for a reason only the owner
 * can fix (a permission the bot lacks, a configured role deleted in Discord) waits, pending, with this as
 * its next attempt, so the claim passes over it; `releaseParked` makes it due once the self-check no longer
 * names the problem. Kept as a date, not a column, so parking needs no change to the table.
 */
export const PARKED_UNTIL = new Date('9999-01-01T00:00:00.000Z');

/** The parked actions' reasons, each with how many wait for it (for the dashboard). */
export interface ParkedSummary {
  count: number;
  reasons: { message: string; count: number }[];
}

export function createOutboxRepository(deps: { sealKey: Buffer; now: () => Date }) {
  const port: OutboxPort = {
    async enqueue(executor, ...actions) {
      if (actions.length === 0) return;
      const waiting = [
        ...new Set(actions.flatMap((a) => (a.priority === 'interactive' && 'discordId' in a && a.discordId ? [a.discordId] : []))),
      ];
      if (waiting.length > 0) await raiseWaitingActions(executor, waiting, deps.now());
      await insertActions(executor, actions, deps.sealKey, deps.now());
    },
    enqueueQuery(executor, ...actions) {
      if (actions.some((a) => a.priority === 'interactive'))
        throw new Error('interactive actions are queued with enqueue, which raises what they wait for');
      return insertActions(executor, actions, deps.sealKey, deps.now());
    },
  };

  return {
    ...port,

    /**
     * Claims due actions for this worker (SKIP LOCKED, so many workers never run one action
     * twice) and leases them for `leaseMs`. `slots` says how many of each kind the worker can
     * start now (a kind it has no room for is not claimed, so slow joins never hold up role
     * changes). Only the first unfinished action of each member is claimable: the next one
     * waits until it is done or failed, whichever worker or process runs it (order per member).
     */
    async claimDue(executor: Executor, slots: ClaimSlots, leaseMs: number): Promise<(OutboxEntry & { sealedSecret: string | null })[]> {
      const claim = claimQuery(executor, slots, leaseMs, deps.now());
      const rows = claim ? await claim : [];
      return rows.sort((a, b) => a.id - b.id).map((row) => ({ ...toEntry(row), sealedSecret: row.sealedSecret }));
    },

    /** claimDue's one statement (null when there is no room for any action), for tests that read its plan. */
    claimQuery: (executor: Executor, slots: ClaimSlots, leaseMs: number) => claimQuery(executor, slots, leaseMs, deps.now()),

    /** Records actions done at Discord, in one statement (the lines of one posted log message are done together). */
    async markDone(executor: Executor, ...ids: number[]): Promise<void> {
      if (ids.length === 0) return;
      const now = deps.now();
      await executor
        .update(discordOutbox)
        .set({ status: 'done', sealedSecret: null, lockedUntil: null, lastError: null, completedAt: now, updatedAt: now })
        .where(sql`${discordOutbox.id} = any(${idArray(ids)})`);
    },

    /**
     * Hands actions a dead worker had claimed back to the queue at once instead of after
     * their lease. Only for a store no other process can use (PGlite: the data folder is
     * locked), where every 'running' row at start-up belongs to the process that crashed.
     */
    async releaseAllLeases(executor: Executor): Promise<number> {
      const rows = await executor
        .update(discordOutbox)
        .set({ status: 'pending', lockedUntil: null, updatedAt: deps.now() })
        .where(eq(discordOutbox.status, 'running'))
        .returning({ id: discordOutbox.id });
      return rows.length;
    },

    /**
     * Back to the queue without spending the attempt its claim counted: the failure was not
     * the action's (Discord rejected the bot token, or asked to wait), so it must not bring
     * the action nearer to failing for good.
     */
    async giveBack(executor: Executor, id: number, note: string, retryAt: Date): Promise<void> {
      await executor
        .update(discordOutbox)
        .set({
          status: 'pending',
          attempts: sql`greatest(${discordOutbox.attempts} - 1, 0)`,
          lockedUntil: null,
          lastError: note.slice(0, 500),
          nextAttemptAt: retryAt,
          updatedAt: deps.now(),
        })
        .where(and(eq(discordOutbox.id, id), eq(discordOutbox.status, 'running')));
    },

    /**
     * Parks a claimed action until the owner fixes what Discord refused it for (PARKED_UNTIL): back to
     * pending with its attempt given back (the failure is the server's setup, not the action's), `note`
     * saying what to fix.
     */
    async park(executor: Executor, id: number, note: string): Promise<void> {
      await executor
        .update(discordOutbox)
        .set({
          status: 'pending',
          attempts: sql`greatest(${discordOutbox.attempts} - 1, 0)`,
          lockedUntil: null,
          lastError: note.slice(0, 500),
          nextAttemptAt: PARKED_UNTIL,
          updatedAt: deps.now(),
        })
        .where(and(eq(discordOutbox.id, id), eq(discordOutbox.status, 'running')));
    },

    /** The parked actions, oldest first (at most `limit`). */
    async listParked(executor: Executor, limit = 500): Promise<OutboxEntry[]> {
      const rows = await executor
        .select()
        .from(discordOutbox)
        .where(and(eq(discordOutbox.status, 'pending'), gte(discordOutbox.nextAttemptAt, PARKED_UNTIL)))
        .orderBy(discordOutbox.id)
        .limit(limit);
      return rows.map(toEntry);
    },

    /** Makes parked actions due now (their problem is fixed); returns how many. */
    async releaseParked(executor: Executor, ids: readonly number[]): Promise<number> {
      if (ids.length === 0) return 0;
      const now = deps.now();
      const rows = await executor
        .update(discordOutbox)
        .set({ nextAttemptAt: now, updatedAt: now })
        .where(
          and(
            sql`${discordOutbox.id} = any(${idArray([...ids])})`,
            eq(discordOutbox.status, 'pending'),
            gte(discordOutbox.nextAttemptAt, PARKED_UNTIL),
          ),
        )
        .returning({ id: discordOutbox.id });
      return rows.length;
    },

    /** How many actions are parked, by reason (most first). */
    async parkedSummary(executor: Executor): Promise<ParkedSummary> {
      const rows = await executor
        .select({ message: discordOutbox.lastError, count: sql<number>`count(*)::int` })
        .from(discordOutbox)
        .where(and(eq(discordOutbox.status, 'pending'), gte(discordOutbox.nextAttemptAt, PARKED_UNTIL)))
        .groupBy(discordOutbox.lastError)
        .orderBy(sql`count(*) desc`);
      const reasons = rows.map((r) => ({ message: r.message ?? '', count: Number(r.count) }));
      return { count: reasons.reduce((n, r) => n + r.count, 0), reasons };
    },

    /** Schedules another try, or ends in 'failed' (visible to staff) when out of attempts or permanent. */
    async markFailed(executor: Executor, id: number, error: string, options: { retryAt: Date | null }): Promise<'retry' | 'failed'> {
      const now = deps.now();
      const [row] = await executor.select().from(discordOutbox).where(eq(discordOutbox.id, id));
      if (!row) return 'failed';
      const giveUp = options.retryAt === null || row.attempts >= row.maxAttempts;
      await executor
        .update(discordOutbox)
        .set(
          giveUp
            ? { status: 'failed', sealedSecret: null, lockedUntil: null, lastError: error.slice(0, 500), completedAt: now, updatedAt: now }
            : { status: 'pending', lockedUntil: null, lastError: error.slice(0, 500), nextAttemptAt: options.retryAt!, updatedAt: now },
        )
        .where(eq(discordOutbox.id, id));
      return giveUp ? 'failed' : 'retry';
    },

    async depth(executor: Executor): Promise<{ pending: number; running: number; failed: number }> {
      const rows = await executor
        .select({ status: discordOutbox.status, count: sql<number>`count(*)::int` })
        .from(discordOutbox)
        .where(inArray(discordOutbox.status, ['pending', 'running', 'failed']))
        .groupBy(discordOutbox.status);
      const by = Object.fromEntries(rows.map((r) => [r.status, Number(r.count)]));
      return { pending: by.pending ?? 0, running: by.running ?? 0, failed: by.failed ?? 0 };
    },

    async list(
      executor: Executor,
      options: { status?: OutboxEntry['status']; discordId?: string; limit?: number } = {},
    ): Promise<OutboxEntry[]> {
      const filters = [];
      if (options.status) filters.push(eq(discordOutbox.status, options.status));
      if (options.discordId) filters.push(eq(discordOutbox.discordId, options.discordId));
      const rows = await executor
        .select()
        .from(discordOutbox)
        .where(filters.length ? and(...filters) : undefined)
        .orderBy(desc(discordOutbox.id))
        .limit(Math.min(options.limit ?? 100, 500));
      return rows.map(toEntry);
    },

    async findById(executor: Executor, id: number): Promise<OutboxEntry | undefined> {
      const [row] = await executor.select().from(discordOutbox).where(eq(discordOutbox.id, id));
      return row ? toEntry(row) : undefined;
    },

    /** Staff can send a failed action back to the queue. */
    async retry(executor: Executor, id: number): Promise<boolean> {
      const rows = await executor
        .update(discordOutbox)
        .set({ status: 'pending', attempts: 0, nextAttemptAt: deps.now(), completedAt: null, updatedAt: deps.now() })
        .where(and(eq(discordOutbox.id, id), eq(discordOutbox.status, 'failed'), isNull(discordOutbox.sealedSecret)))
        .returning({ id: discordOutbox.id });
      return rows.length > 0;
    },

    /** Removes finished actions older than the cut-off (retention). */
    async purgeFinished(executor: Executor, before: Date): Promise<number> {
      const rows = await executor
        .delete(discordOutbox)
        .where(and(inArray(discordOutbox.status, ['done', 'failed']), lt(discordOutbox.updatedAt, before)))
        .returning({ id: discordOutbox.id });
      return rows.length;
    },
  };
}

export type OutboxRepository = ReturnType<typeof createOutboxRepository>;

export interface DiscardedOutbox {
  /** unused sealed access tokens (add-to-server actions that had not run) */
  tokens: number;
  /** finished actions (done or failed) naming the account */
  finished: number;
  /** log lines about the account not yet posted */
  logLines: number;
}

/**
 * Drops what the outbox holds about Discord accounts whose data is deleted: every action
 * still carrying a sealed access token (an add-to-server that has not run), every finished
 * action, and every log line not yet posted (their texts name the account, and a line
 * announcing a deleted member's verification should not appear after the deletion).
 * Role changes, kicks and bans still waiting stay, so Discord ends in the state the
 * records said; so does whatever a worker is running at this moment.
 */
export async function discardMembersOutbox(executor: Executor, discordIds: readonly string[]): Promise<DiscardedOutbox> {
  if (discordIds.length === 0) return { tokens: 0, finished: 0, logLines: 0 };
  const rows = await executor
    .delete(discordOutbox)
    .where(
      and(
        inArray(discordOutbox.discordId, [...discordIds]),
        or(
          sql`${discordOutbox.sealedSecret} is not null`,
          inArray(discordOutbox.status, ['done', 'failed']),
          and(eq(discordOutbox.kind, 'log_message'), eq(discordOutbox.status, 'pending')),
        ),
      ),
    )
    .returning({ hadToken: sql<boolean>`${discordOutbox.sealedSecret} is not null`, status: discordOutbox.status });
  const tokens = rows.filter((r) => r.hadToken).length;
  const finished = rows.filter((r) => !r.hadToken && (r.status === 'done' || r.status === 'failed')).length;
  return { tokens, finished, logLines: rows.length - tokens - finished };
}
