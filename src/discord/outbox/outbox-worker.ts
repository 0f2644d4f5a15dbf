import { DiscordAPIError, type REST } from '@discordjs/rest';
import type { RESTPostAPIChannelMessageJSONBody } from 'discord-api-types/v10';
import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { isDatabaseUnavailable, sqlState } from '../../db/db-errors';
import { OUTBOX_KINDS } from '../../db/schema';
import type { Logger } from '../../logger';
import { appendAudit } from '../../modules/audit';
import type { OutboxRepository, OutboxEntry } from '../../modules/outbox';
import type { SetupProblem } from '../bot-setup-check';
import { BotTokenRejectedError } from '../bot-token-health';
import type { DiscordGuard } from '../discord-guard';
import type { GuildDirectory } from '../guild-directory';
import type { GuildMemberCache } from '../guild-member-cache';
import { absentMemberLine } from './absent-member';
import { createDiscordActions } from './discord-actions';
import type { RoleConnectionUpdates } from '../role-connection-updates';
import type { VerificationLevelCall } from '../lockdown-verification-level-call';
import { logLineOf, planLogPosts } from '../log-cards/log-card-message';
import { classifyDiscordError, nextRetryDelayMs, retryAfterMs } from './outbox-errors';
import {
  deletedRoleMessage,
  isMissingPermission,
  isUnknownRole,
  missingPermissionMessage,
  missingRole,
  needsOwnerFix,
  problemsFor,
  waitingForFixMessage,
} from './failure-advice';

type Claimed = OutboxEntry & { sealedSecret: string | null };

/** The logs channel's line for an action that failed for good. */
export function failedActionLine(entry: Pick<OutboxEntry, 'kind' | 'discordId'>, message: string): string {
  if (entry.kind === 'verification_level')
    return `❗ Could not change the server's verification level for the lockdown: ${message.replace(/\.$/, '')}. The lockdown still holds in Gatekeeper.`;
  if (entry.kind === 'incident_actions')
    return `❗ Could not change the lockdown's pause in Discord: ${message.replace(/\.$/, '')}. The lockdown still holds in Gatekeeper; staff can retry it from the dashboard.`;
  return `❗ Could not ${entry.kind.replace(/_/g, ' ')} for <@${entry.discordId}>: ${message}. Staff can retry it from the dashboard.`;
}
type Kind = OutboxEntry['kind'];

/** How long a claimed action is ours; past it another worker may take it over (we died). */
const LEASE_MS = 120_000;
/** How long the outbox keeps trying to record a result while the database is away (~10 s in all). */
const PERSIST_RETRY_DELAYS_MS = [100, 400, 1500, 3000, 5000];
/** The least time between two claim queries that found nothing (a busy queue whose slots are full). */
const IDLE_CLAIM_GAP_MS = 100;
/**
 * The longest a log line waits for others to share its message. Lines are posted as soon
 * as they fill a message (a raid's backlog does within seconds); only a message that is
 * not full waits, at most this long, so quiet hours see their lines a few seconds late.
 */
export const LOG_LINGER_MS = 5000;
/** How often the actions parked for a fix are checked against the self-check (one self-check, no call per action). */
export const PARK_RECHECK_MS = 60_000;

export interface OutboxWorkerStats {
  done: number;
  retried: number;
  failed: number;
  /** 4xx answers from Discord (Discord bans bots with too many) */
  invalidRequests: number;
  /** actions sent back to the queue with their attempt given back (token rejected, rate limited) */
  givenBack: number;
  /** actions parked until the owner fixes what Discord refused them for (a permission, a deleted role) */
  parked: number;
}

/**
 * Runs queued Discord actions with retries and backoff. @discordjs/rest queues every call
 * by Discord's rate-limit buckets, so a burst never goes over the limits. Actions flow
 * continuously: each kind has its own slots (up to `concurrency` in flight), and a free
 * slot is refilled as soon as it frees, so a kind waiting on a slow bucket (joins) never
 * holds up another (role changes). One member's actions run one after another, in the
 * order they were queued (the claim only hands out a member's first unfinished action).
 * Log lines are merged into as few messages as possible: the worker holds the lines it
 * took until they fill a message (or the oldest has waited `logLingerMs`), then posts the
 * full messages, one at a time and in order. Held lines stay leased in the outbox, so a
 * worker that dies leaves them to the next one.
 */
export function createOutboxWorker(deps: {
  database: Database;
  outbox: OutboxRepository;
  rest: REST;
  directory: GuildDirectory;
  sealKey: Buffer;
  /** the site's address, for the log cards' links to the dashboard */
  websiteUrl: string;
  /** the role that posts of alarms (a certain alt, a raid alarm) ping, read at each post; none: nobody is pinged */
  alarmPingRole?: () => string | null;
  /** what the bot saw of members' roles (shared with the bot when both run in this process) */
  members?: GuildMemberCache;
  clock: Clock;
  logger: Logger;
  /** log lines held and being posted at most (the claim takes no more) */
  batchSize?: number;
  /** the longest a log line waits for a full message (0: post what was taken at once) */
  logLingerMs?: number;
  pollMs?: number;
  /** actions of one kind in flight at most */
  concurrency?: number;
  /**
   * the process's Discord guard: while Discord rejects the bot token the worker claims
   * nothing and gives back what was under way; past half the invalid-request budget log
   * lines wait
   */
  guard?: Pick<DiscordGuard, 'token' | 'gate'>;
  /**
   * the permission self-check's problems, checked afresh: names the fix when Discord refuses an action for
   * the server's setup (the action is then parked), and tells when a parked action can go on
   */
  setupProblems?: () => Promise<SetupProblem[]>;
  /** how often parked actions are checked against the self-check (default a minute) */
  parkRecheckMs?: number;
  onFinished?: (entry: OutboxEntry, result: 'done' | 'retry' | 'failed') => void;
  /** revokes a joined member's access token in the background (token-revocation.ts) */
  revokeAccessToken?: (accessToken: string) => void;
  /** Linked Roles: the role_connection actions (role-connection-updates.ts) */
  roleConnections?: Pick<RoleConnectionUpdates, 'run'>;
  /** the lockdown's verification level (lockdown-verification-level-call.ts) */
  verificationLevel?: Pick<VerificationLevelCall, 'run'>;
}) {
  const batchSize = deps.batchSize ?? 100;
  const logLingerMs = deps.logLingerMs ?? LOG_LINGER_MS;
  const pollMs = deps.pollMs ?? 1000;
  const concurrency = deps.concurrency ?? 10;
  const stats: OutboxWorkerStats = { done: 0, retried: 0, failed: 0, invalidRequests: 0, givenBack: 0, parked: 0 };
  const parkRecheckMs = deps.parkRecheckMs ?? PARK_RECHECK_MS;
  const actions = createDiscordActions({
    rest: deps.rest,
    directory: deps.directory,
    sealKey: deps.sealKey,
    websiteUrl: deps.websiteUrl,
    alarmPingRole: deps.alarmPingRole,
    members: deps.members,
    revokeAccessToken: deps.revokeAccessToken,
    roleConnections: deps.roleConnections,
    verificationLevel: deps.verificationLevel,
  });
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;

  /**
   * The REST client learns a route's rate-limit bucket from its first answer; calls sent
   * in parallel before that can overrun it (and meet a 429). So the first call of each
   * kind runs alone, and the others wait for it.
   */
  const warmed = new Map<Kind, Promise<void>>();
  async function executeWarm(entry: Claimed): Promise<void> {
    const warming = warmed.get(entry.kind);
    if (warming) {
      await warming.catch(() => undefined);
      return actions.run(entry);
    }
    const first = actions.run(entry);
    warmed.set(entry.kind, first);
    try {
      await first;
    } catch (error) {
      warmed.delete(entry.kind); // not learnt yet: the next one warms up again
      throw error;
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

  /** The token was rejected while this ran (the REST client drops it on a 401, so calls under way fail too). */
  function tokenRejected(error: unknown): boolean {
    if (!deps.guard) return false;
    return (
      error instanceof BotTokenRejectedError || deps.guard.token.rejected || (error instanceof DiscordAPIError && error.status === 401)
    );
  }

  /**
   * Why an action failed, in words that tell the owner what to fix. Discord refused it for the
   * server's setup (403 Missing Permissions, a configured role Unknown or gone): a fresh self-check
   * names the problem and its fix, and the action is parked (it waits, untried, until the
   * self-check no longer names it: recheckParked). A 403 the self-check cannot explain (the
   * member's own highest role is above the bot's) fails with that advice; staff retry it.
   */
  async function explain(
    entry: Claimed,
    error: unknown,
    checked?: Promise<SetupProblem[]>,
  ): Promise<{ message: string; park: boolean } | null> {
    if (!needsOwnerFix(error)) return null;
    if (isUnknownRole(error)) deps.directory.forget(); // its cached role ids are stale: read them again
    const problems = await (checked ?? problemsNow());
    const relevant = problemsFor(entry, problems);
    if (relevant.length > 0) return { message: waitingForFixMessage(error, relevant), park: true };
    if (isMissingPermission(error)) return { message: missingPermissionMessage(entry, error as DiscordAPIError, problems), park: false };
    const role = await missingRole(entry, error, (r) => deps.directory.roleId(r));
    if (role) return { message: deletedRoleMessage(role), park: false };
    return null;
  }

  /** The self-check's problems, checked afresh (none without a self-check, or when it cannot run). */
  function problemsNow(): Promise<SetupProblem[]> {
    return deps.setupProblems ? deps.setupProblems().catch(() => []) : Promise.resolve([]);
  }

  /** Messages of parked actions already logged (one warning per problem, not per action). */
  const parkedNotes = new Set<string>();

  async function park(entry: Claimed, message: string): Promise<void> {
    await persist(() => deps.outbox.park(deps.database.db, entry.id, message));
    stats.parked++;
    if (!parkedNotes.has(message)) {
      parkedNotes.add(message);
      deps.logger.warn({ kind: entry.kind }, `Discord action waits for the owner: ${message}`);
    }
    deps.onFinished?.(entry, 'retry');
  }

  /**
   * Makes the parked actions whose problem the self-check no longer names due again (the owner
   * gave the permission back, chose another role, …). No call to Discord per action: one self-check.
   */
  async function recheckParked(): Promise<number> {
    if (!deps.setupProblems) return 0;
    const parked = await deps.outbox.listParked(deps.database.db);
    if (parked.length === 0) return 0;
    const problems = await deps.setupProblems();
    const fixed = parked.filter((entry) => problemsFor(entry, problems).length === 0);
    if (fixed.length === 0) return 0;
    deps.directory.forget(); // a role chosen again, or created again, has a new id
    const released = await deps.outbox.releaseParked(
      deps.database.db,
      fixed.map((entry) => entry.id),
    );
    parkedNotes.clear();
    deps.logger.info({ released }, 'Discord actions waiting for a fix go on: the self-check no longer names their problem');
    return released;
  }
  let lastParkCheck = 0;
  /** recheckParked at most every `parkRecheckMs` (from the poll) */
  function maybeRecheckParked(): void {
    if (Date.now() - lastParkCheck < parkRecheckMs) return;
    lastParkCheck = Date.now();
    void recheckParked()
      .then((released) => {
        if (released > 0 && !stopped) kick();
      })
      .catch(reportError);
  }

  /** Records a failed action: given back, parked, retried or failed. `checked`: a self-check already run for this error (shared by the lines of one log message). */
  async function settle(entry: Claimed, error: unknown, checked?: Promise<SetupProblem[]>): Promise<void> {
    const absent = absentMemberLine(entry, error);
    if (absent) return settleAbsent(entry, absent);
    const failure = classifyDiscordError(error);
    if (failure.status && failure.status >= 400 && failure.status < 500) stats.invalidRequests++;
    // not the action's fault: back to the queue with its attempt, so no member's progress is lost
    if (tokenRejected(error) || failure.status === 429) {
      const waiting = tokenRejected(error) ? 'waiting: Discord rejected the bot token' : `waiting: ${failure.message}`;
      // a 429 that reached us (the REST client waits out the ones it can): again after the wait Discord asked for
      const retryAt = new Date(deps.clock.now().getTime() + (failure.status === 429 ? (retryAfterMs(error) ?? nextRetryDelayMs(1)) : 0));
      await persist(() => deps.outbox.giveBack(deps.database.db, entry.id, waiting, retryAt));
      stats.givenBack++;
      deps.onFinished?.(entry, 'retry');
      return;
    }
    const advice = await explain(entry, error, checked).catch(() => null);
    if (advice?.park) return park(entry, advice.message);
    if (advice) Object.assign(failure, { message: advice.message, kind: 'permanent' });
    const retryAt = failure.kind === 'permanent' ? null : new Date(deps.clock.now().getTime() + nextRetryDelayMs(entry.attempts));
    const result = await persist(() => deps.outbox.markFailed(deps.database.db, entry.id, failure.message, { retryAt }));
    if (result === 'failed') {
      stats.failed++;
      deps.logger.error({ outboxId: entry.id, kind: entry.kind, error: failure.message }, 'Discord action failed for good');
      await deps.database.db.transaction(async (tx) => {
        await appendAudit(
          tx,
          {
            actor: { type: 'system', id: 'outbox', name: 'Discord outbox' },
            action: 'outbox.failed',
            targetType: 'member',
            targetId: entry.discordId,
            details: { outboxId: entry.id, kind: entry.kind, error: failure.message, attempts: entry.attempts },
          },
          deps.clock.now(),
        );
        if (entry.kind !== 'log_message') {
          await deps.outbox.enqueue(tx, {
            kind: 'log_message',
            event: 'outbox_failed',
            discordId: entry.discordId ?? undefined,
            text: failedActionLine(entry, failure.message),
          });
        }
      });
    } else {
      stats.retried++;
      deps.logger.warn(
        { outboxId: entry.id, kind: entry.kind, attempt: entry.attempts, error: failure.message },
        'Discord action will be retried',
      );
    }
    deps.onFinished?.(entry, result);
  }

  /** A role change for someone not in the server: done, with the line saying what happens next (absent-member.ts). */
  async function settleAbsent(entry: Claimed, line: string): Promise<void> {
    await persist(() =>
      deps.database.db.transaction(async (tx) => {
        await deps.outbox.markDone(tx, entry.id);
        await deps.outbox.enqueue(tx, { kind: 'log_message', event: 'staff_action', discordId: entry.discordId ?? undefined, text: line });
      }),
    );
    stats.done++;
    deps.onFinished?.(entry, 'done');
  }

  /** Actions done at Discord (one, or the lines of one posted message), recorded in one statement. */
  async function finishDone(...entries: Claimed[]): Promise<void> {
    // done at Discord: only the bookkeeping is left, and a failure there must not run it again
    await persist(() => deps.outbox.markDone(deps.database.db, ...entries.map((entry) => entry.id)));
    for (const entry of entries) {
      // the join's access token is revoked only once the join is recorded: a process that dies
      // between Discord's answer and the record runs the join again, and needs the token for it
      // a token that is also the member's Linked Roles grant lives on (role_connection_grants)
      if (entry.kind === 'add_guild_member' && entry.payload.keepToken !== true) actions.revokeUsedToken(entry.sealedSecret);
      stats.done++;
      deps.onFinished?.(entry, 'done');
    }
  }

  async function runAction(entry: Claimed): Promise<void> {
    try {
      await executeWarm(entry);
    } catch (error) {
      await settle(entry, error);
      return;
    }
    await finishDone(entry);
  }

  /** Posts log messages one after another; a failed one sends its lines and the rest back to the queue. */
  async function postLogMessages(messages: { body: RESTPostAPIChannelMessageJSONBody; entries: Claimed[] }[]): Promise<void> {
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!;
      try {
        await actions.postMessage(message.body);
      } catch (error) {
        // one self-check explains the refusal for every line, not one check (four calls to Discord) per line
        const checked = needsOwnerFix(error) ? problemsNow() : undefined;
        for (const entry of messages.slice(i).flatMap((m) => m.entries)) await settle(entry, error, checked);
        return;
      }
      // a message of 60 lines was 60 statements one after another on PGlite's one connection
      await finishDone(...message.entries);
    }
  }

  /** Log lines taken from the queue, oldest first, with when they were taken. */
  const heldLogs: { entry: Claimed; takenAt: number }[] = [];
  let postingLogs = 0;
  let lingerTimer: NodeJS.Timeout | undefined;

  /**
   * Posts the held log lines that fill whole messages; the last message, if not full,
   * waits for more lines until its oldest line has waited `logLingerMs` (`all`: post it
   * too). One post at a time, so messages keep the lines' order.
   */
  function flushLogs(all: boolean): void {
    if (lingerTimer) clearTimeout(lingerTimer);
    lingerTimer = undefined;
    if (postingLogs > 0 || heldLogs.length === 0) return;
    const packed = planLogPosts(
      heldLogs.map((h) => logLineOf(h.entry)),
      deps.websiteUrl,
      deps.alarmPingRole?.() ?? null,
    );
    const waited = Date.now() - heldLogs[0]!.takenAt;
    const send = all || waited >= logLingerMs ? packed : packed.slice(0, -1);
    if (send.length === 0) {
      if (!stopped) lingerTimer = setTimeout(() => flushLogs(false), logLingerMs - waited);
      return;
    }
    const lines = send.reduce((n, m) => n + m.lines.length, 0);
    const taken = heldLogs.splice(0, lines);
    const messages = send.map((m) => ({ body: m.body, entries: m.lines.map((i) => taken[i]!.entry) }));
    postingLogs = lines;
    occupy(
      'log_message',
      postLogMessages(messages).finally(() => {
        postingLogs = 0;
        flushLogs(stopped);
      }),
    );
  }

  function holdLogs(entries: Claimed[]): void {
    const now = Date.now();
    for (const entry of entries) heldLogs.push({ entry, takenAt: now });
    flushLogs(false);
  }

  /**
   * A failure of the worker's own work. The database being away (a restart) is an outage, not a fault:
   * a warning, since what was claimed is claimed again once its lease runs out, and the rest waits.
   */
  function reportError(error: unknown): void {
    if (isDatabaseUnavailable(error))
      deps.logger.warn(
        { sqlState: sqlState(error), message: error instanceof Error ? error.message.split('\n')[0] : String(error) },
        'outbox worker: the database is unreachable; its work waits until it answers',
      );
    else deps.logger.error({ err: error }, 'outbox worker error');
  }

  const inFlight = new Map<Kind, number>();
  const running = new Set<Promise<void>>();

  /** Runs one piece of work in a kind's slot; when it ends, the slot is refilled. */
  function occupy(kind: Kind, work: Promise<void>): void {
    inFlight.set(kind, (inFlight.get(kind) ?? 0) + 1);
    const tracked = work.catch(reportError).finally(() => {
      inFlight.set(kind, (inFlight.get(kind) ?? 1) - 1);
      running.delete(tracked);
      if (!stopped) kick();
    });
    running.add(tracked);
  }

  /** Free slots per kind: `concurrency` actions of each kind; log lines up to `batchSize` held or being posted. */
  function freeSlots(): Partial<Record<Kind, number>> {
    const free: Partial<Record<Kind, number>> = {};
    // past half the invalid-request budget, log lines (not essential) stay queued
    const logsWait = deps.guard?.gate.state() === 'paused';
    for (const kind of OUTBOX_KINDS)
      free[kind] =
        kind === 'log_message' ? (logsWait ? 0 : batchSize - heldLogs.length - postingLogs) : concurrency - (inFlight.get(kind) ?? 0);
    return free;
  }

  /** What one claim did: how many actions it started, and whether a kind took all the room it had (more may be due). */
  interface Filled {
    started: number;
    filledAKind: boolean;
  }
  const NOTHING: Filled = { started: 0, filledAKind: false };
  let claiming: Promise<Filled> = Promise.resolve(NOTHING);
  /** Claims what the free slots allow and starts it; one claim at a time. */
  function fill(): Promise<Filled> {
    claiming = claiming
      .catch(() => NOTHING)
      .then(async () => {
        // Discord rejects the bot token: everything stays queued, with its attempts, until a probe finds it works
        if (deps.guard?.token.rejected) return NOTHING;
        const free = freeSlots();
        if (Object.values(free).every((n) => (n ?? 0) <= 0)) return NOTHING;
        const claimed = await deps.outbox.claimDue(deps.database.db, free, LEASE_MS);
        const logs = claimed.filter((e) => e.kind === 'log_message');
        for (const entry of claimed) if (entry.kind !== 'log_message') occupy(entry.kind, runAction(entry));
        if (logs.length > 0) holdLogs(logs);
        const perKind = new Map<Kind, number>();
        for (const entry of claimed) perKind.set(entry.kind, (perKind.get(entry.kind) ?? 0) + 1);
        const filledAKind = [...perKind].some(([kind, n]) => n >= (free[kind] ?? 0));
        return { started: claimed.length, filledAKind };
      });
    return claiming;
  }

  let filling = false;
  let again = false;
  /** a nudge's kick is waiting for the next turn of the event loop */
  let nudged = false;
  /** Keeps filling slots while there is due work and room; calls made meanwhile fold into it. */
  function kick(): void {
    if (filling) {
      again = true;
      return;
    }
    filling = true;
    void (async () => {
      try {
        do {
          again = false;
          // claim again at once only when there may be more due: a kind took all the room it had, or a
          // call came while the claim ran (work enqueued, an action finished). A claim that found less
          // than the room took everything due at its snapshot; the one after it found nothing (a
          // statement per verification in P2's trace, half the claims). Work that becomes due later
          // calls kick itself (nudge, a finished action) or waits for the poll (another process's).
          while (!stopped) {
            const { started, filledAKind } = await fill();
            if (started === 0 || (!filledAKind && !again)) break;
            again = false;
          }
          // nothing was claimable but more calls came meanwhile (a raid nudges on every visitor):
          // pause before asking again, so the claim query does not run back to back
          if (again && !stopped) await new Promise((resolve) => setTimeout(resolve, IDLE_CLAIM_GAP_MS));
        } while (again && !stopped);
      } catch (error) {
        reportError(error);
      } finally {
        filling = false;
      }
    })();
  }

  // the token works again: resume at once rather than at the next poll
  deps.guard?.token.onRestored(() => {
    if (!stopped) kick();
  });

  return {
    stats,
    /** releases the parked actions whose problem is fixed now, rather than at the next check; how many */
    recheckParked,
    /** processes everything due now, and what becomes claimable as it finishes (tests, drills) */
    async drain(): Promise<void> {
      await recheckParked();
      for (;;) {
        const { started } = await fill();
        if (started === 0) flushLogs(true); // nothing more to wait for: post what is held
        if (started === 0 && running.size === 0 && heldLogs.length === 0) return;
        if (started === 0 && running.size > 0) await Promise.race(running);
      }
    },
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setInterval(() => {
        maybeRecheckParked();
        kick();
      }, pollMs);
      kick();
    },
    /**
     * run now rather than at the next poll (a visitor just finished): on the next turn of the
     * event loop, so the request that nudged is answered before the claim is built and sent
     */
    nudge() {
      if (stopped || nudged) return;
      nudged = true;
      setImmediate(() => {
        nudged = false;
        if (!stopped) kick();
      });
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await claiming.catch(() => NOTHING);
      flushLogs(true); // post what is held rather than leave it to the lease
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}

export type OutboxWorker = ReturnType<typeof createOutboxWorker>;
