import type { SQL, SQLWrapper } from 'drizzle-orm';
import { countsAsAlt } from '../../shared/alt-evidence-words';
import { isCertainAlt } from '../../shared/member-badges';
import {
  queueRoleConnectionUpdate,
  saveGrantQuery,
  type RoleConnectionTokens,
  auditLogReason,
  type DiscordAction,
  type OutboxPort,
} from '../outbox';
import type { Clock } from '../../clock';
import type { Database, Executor } from '../../db/client';
import { asLastStatement } from '../../db/last-statement';
import { sqlState } from '../../db/db-errors';
import { retryOnConflict, retryWhileUncommitted } from '../../db/transaction-retry';
import type { Logger } from '../../logger';
import { logAltFound, logDenied, logHeld, logLimited, logVerified } from '../../operator-events';
import { type AdmissionGate, type AdmissionRead, type AdmissionReadQuery, setMemberGate } from '../admission';
import { appendAudit } from '../audit';
import {
  saveCachedVerdictQuery,
  decideVpnOutcome,
  isVpnVerdict,
  type VpnCheckResult,
  type VpnFailurePolicy,
  type VpnOutcome,
} from '../vpn';
import type { DetectedAlt } from './detected-alt';
import {
  recordAttemptEnding,
  recordSignIn,
  signInAttemptKept,
  type AttemptEvidence,
  type AttemptRow,
  type SignedInMember,
  type SignInAttemptColumns,
  type VerifiedIdentity,
} from './verification.repository';
import { joinRoles, websiteEnding, websiteOutcomeLine, type WebsiteEnding } from './website-outcome';

/*
 * A completed Discord sign-in, from the VPN check's verdict to the Discord actions it queues. Read
 * `completeVerification` and `signIn` top to bottom: each line is one step, a function below.
 *
 * Round trips are a sign-in's main cost (src/http/routes/visitor-flow.statements.int.test.ts holds
 * the budget), so two steps batch work explicitly, each in ONE statement:
 * - `storeSignIn` writes the member and its attempt and, in the same statement, makes the reads the
 *   later steps need from other modules: the admission read (admission.readQuery) and the alt
 *   candidate lookup (alts.lookupQuery). Each module builds its read and is handed back its answer.
 * - `writeEnding` is the transaction's last statement: every remaining write, each built by its own
 *   module's query function right there (the gate, the attempt's ending, the VPN cache entry, the
 *   caller's write, the outbox rows), runs alongside the audit row (appendAudit's `alongside`).
 * No step hands SQL to another to run later.
 */

/** Alt detection as the verification flow needs it (src/modules/alts implements it). */
export interface AltDetector {
  /**
   * the alts found, and whether the member is now the alt side of a certain link; `madeCertainAlt`:
   * the other accounts this detection made (or strengthened into) the alt side of a certain link; `lookup`:
   * the value `lookupQuery` gave in the sign-in's statement (the candidates are read then, not again)
   */
  detect(
    tx: Executor,
    input: { member: SignedInMember; attempt: AttemptRow & { stockProfile?: boolean | null }; lookup?: unknown },
  ): Promise<{ alts: DetectedAlt[]; isLinkedAsAlt: boolean; madeCertainAlt?: string[] }>;
  /** the candidate lookup of an attempt as an SQL expression, for the sign-in's statement; null when there is nothing to look up by */
  lookupQuery(attempt: SignInAttemptColumns, memberId: SQL): SQL | null;
}

/** The raid check and the admission rules (lockdown, account age) as the sign-in needs them (src/modules/admission implements them). */
export interface AdmissionPort {
  /** the admission step's read, for the sign-in's statement (counting in the attempt that statement writes) */
  readQuery(now: Date): AdmissionReadQuery;
  /** the raid check and the rules: the gate and its log line (the member's gate is written by the sign-in's last statement) */
  gate(tx: Executor, input: { member: { id: number; discordId: string }; now: Date; read?: AdmissionRead }): Promise<AdmissionGate>;
}

export interface VerificationResult {
  outcome: VpnOutcome;
  discordId: string;
  memberId: number | null;
  vpnProvider: string | null;
  alts: DetectedAlt[];
}

export interface SignInFlowDeps {
  database: Database;
  clock: Clock;
  logger: Logger;
  outbox: OutboxPort;
  alts: AltDetector;
  vpnFailurePolicy: VpnFailurePolicy;
  /** runs the outbox now instead of waiting for its next poll */
  nudgeOutbox?: () => void;
  /** counts outcomes (metrics) */
  onCompleted?: (outcome: VpnOutcome) => void;
  /** the raid check and the admission rules, run once the attempt is written */
  admission?: AdmissionPort;
  /** Linked Roles: whether they are on (a grant is kept only then) and the key grants are sealed with (the outbox's) */
  linkedRoles?: { readonly enabled: boolean; sealKey: Buffer };
}

export interface SignInInput {
  identity: VerifiedIdentity;
  accessToken: string;
  vpn: VpnCheckResult;
  evidence: AttemptEvidence;
  /**
   * a write of the caller's that belongs with the verification (where the sign-in's callback
   * ended), run in its last statement with how it ended: stored together, or not at all
   */
  alsoWrite?: (executor: Executor, ended: 'stored' | 'denied') => SQLWrapper;
  /** the sign-in's grant for the member's role connection (scope role_connections.write), when it asked for one */
  roleConnectionGrant?: RoleConnectionTokens;
}

/** What one sign-in knows before its transaction: the input, the VPN outcome and the time. */
interface SignInContext extends SignInInput {
  now: Date;
  outcome: Exclude<VpnOutcome, 'denied'>;
  usedVpn: boolean;
}

/** How a sign-in ends, decided from what its steps found (`decideEnding`). */
interface Ending {
  ended: WebsiteEnding;
  /** written on the attempt when the verification did not end at its outcome's access */
  attemptEnding: 'denied_alt' | 'pending' | null;
  /** the Discord actions, in order: the gate's log line, the guild join, the outcome line, the alts found */
  actions: [DiscordAction, ...DiscordAction[]];
}

/** A committed sign-in: its answer, and how it ended (for the operator's log line). */
interface SignedIn {
  result: VerificationResult;
  ended: WebsiteEnding;
}

const NO_EVIDENCE: AttemptEvidence = { ip: null, fingerprintHash: null, components: null, browserTokenHash: null };

/**
 * The heart of the visitor flow: one completed Discord sign-in becomes a member, an
 * attempt, alt links, the Discord actions that follow (guild join, log lines) and an
 * audit row, all in ONE transaction, so nothing a visitor completed is lost and
 * nothing half-done is kept.
 */
export function createSignInFlow(deps: SignInFlowDeps) {
  return async function completeVerification(input: SignInInput): Promise<VerificationResult> {
    const now = deps.clock.now();
    const outcome = decideVpnOutcome(input.vpn, deps.vpnFailurePolicy);
    if (outcome === 'denied') return recordDenial(deps, input, now);
    const context: SignInContext = {
      ...input,
      now,
      outcome,
      usedVpn: isVpnVerdict(input.vpn.verdict),
      evidence: outcome === 'limited_access' ? NO_EVIDENCE : input.evidence,
    };
    const { result, ended } = await runUntilKept(deps, context);
    logWebsiteEnding(deps.logger, { discordId: input.identity.discordId, ended, alts: result.alts, vpnProvider: input.vpn.provider });
    deps.nudgeOutbox?.();
    deps.onCompleted?.(outcome);
    return result;
  };
}

/** The sign-in's transaction: its steps, in order. `committing` is given the answer where its commit starts. */
async function signIn(
  deps: SignInFlowDeps,
  tx: Executor,
  context: SignInContext,
  committing: (signedIn: SignedIn) => void,
): Promise<SignedIn> {
  const stored = await storeSignIn(deps, tx, context);
  const admitted = await admit(deps, tx, stored, context.now);
  const detected = await detectAlts(deps, tx, stored, context);
  // Linked Roles on and granted: the grant is kept (sealed) to write the member's role connection now and after later decisions
  const grant = deps.linkedRoles?.enabled && context.roleConnectionGrant ? context.roleConnectionGrant : null;
  const ending = decideEnding(context, stored.member, admitted, detected, grant);
  const signedIn: SignedIn = {
    result: {
      outcome: context.outcome,
      discordId: context.identity.discordId,
      memberId: stored.member.id,
      vpnProvider: context.usedVpn ? context.vpn.provider : null,
      alts: detected.alts,
    },
    ended: ending.ended,
  };
  await writeEnding(
    deps,
    tx,
    { context, member: stored.member, attempt: stored.attempt, gate: admitted, ending, alts: detected.alts, grant },
    () => committing(signedIn),
  );
  return signedIn;
}

/**
 * A refusal by the VPN failure policy: nothing of the visitor is kept; the log line, the VPN cache
 * entry, the caller's write and the audit row are one statement, which commits on its own.
 */
async function recordDenial(deps: SignInFlowDeps, input: SignInInput, now: Date): Promise<VerificationResult> {
  const { db } = deps.database;
  const { discordId } = input.identity;
  const logLine = deps.outbox.enqueueQuery(db, {
    kind: 'log_message',
    event: 'denied',
    discordId,
    text: `⛔ <@${discordId}> was denied on the website: the VPN check could not be made and the policy is to deny.`,
  });
  logDenied(deps.logger, { discordId, why: 'the VPN check could not be made and the policy is to deny' });
  const details = { reason: 'vpn_check_failed', policy: deps.vpnFailurePolicy };
  await appendAudit(
    db,
    { actor: { type: 'visitor', id: discordId }, action: 'verification.denied', targetType: 'member', targetId: discordId, details },
    now,
    [...vpnCacheWrite(db, input.vpn), logLine, ...(input.alsoWrite ? [input.alsoWrite(db, 'denied')] : [])],
  );
  deps.nudgeOutbox?.();
  deps.onCompleted?.('denied');
  return { outcome: 'denied', discordId, memberId: null, vpnProvider: null, alts: [] };
}

/**
 * Runs the sign-in's transaction until it is kept. The visitor's OAuth state is used up and Discord's
 * code exchanged: a failed sign-in cannot be repeated by the visitor without starting over. So a
 * connection lost before the commit starts (a PostgreSQL restart) runs the transaction again instead of
 * sending them to 'Verification Failed'; one lost while it commits is settled by reading whether its
 * attempt was kept (this member's, at this sign-in's time), and it runs again only if not.
 */
function runUntilKept(deps: SignInFlowDeps, context: SignInContext): Promise<SignedIn> {
  const { discordId } = context.identity;
  return retryWhileUncommitted<SignedIn>(
    (committing) => retryOnConflict(() => deps.database.db.transaction((tx) => signIn(deps, tx, context, committing))),
    {
      onRetry: (attempt, error) =>
        deps.logger.warn({ attempt, sqlState: sqlState(error) }, 'the database connection was lost during a sign-in; running it again'),
      wasKept: async () => {
        const kept = await signInAttemptKept(deps.database.db, discordId, context.now);
        deps.logger.warn(
          `the database connection was lost while a sign-in committed; ${kept ? 'it was kept' : 'it was not kept, running it again'}`,
        );
        return kept;
      },
    },
  );
}

/**
 * Step 1, one statement: the member upserted and its attempt written, with the admission read (raid
 * window, lockdown) and, for a verified attempt, the alt candidate lookup made in the same statement (a
 * Limited Access attempt keeps no evidence to look up by). Each module built its read; its answer goes
 * back to it in the steps below.
 */
async function storeSignIn(deps: SignInFlowDeps, tx: Executor, context: SignInContext) {
  const admissionRead = deps.admission?.readQuery(context.now);
  const lookup = context.outcome === 'verified' ? deps.alts.lookupQuery : undefined;
  const stored = await recordSignIn(tx, context, { admission: admissionRead?.query, candidates: lookup });
  return {
    member: stored.member,
    attempt: stored.attempt,
    admissionRead: admissionRead?.read(stored.admission),
    candidates: stored.candidates,
  };
}

type StoredSignIn = Awaited<ReturnType<typeof storeSignIn>>;

/** Step 2: the raid check and the admission rules (their gate is written by the last statement); no gate without the admission module. */
async function admit(deps: SignInFlowDeps, tx: Executor, stored: StoredSignIn, now: Date): Promise<AdmissionGate | null> {
  if (!deps.admission) return null;
  return deps.admission.gate(tx, { member: stored.member, now, read: stored.admissionRead });
}

/**
 * Step 3: the alts of a verified attempt (from the candidates step 1 read); a Limited Access one finds none and
 * keeps the member's standing. Linked Roles on: another account the detection made a certain alt has its
 * connection follow (not an alt: 0), when it gave a grant; the member's own follows with their sign-in's write.
 */
async function detectAlts(
  deps: SignInFlowDeps,
  tx: Executor,
  stored: StoredSignIn,
  context: SignInContext,
): Promise<{ alts: DetectedAlt[]; isLinkedAsAlt: boolean }> {
  if (context.outcome !== 'verified') return { alts: [], isLinkedAsAlt: stored.member.counters.isLinkedAsAlt };
  const detected = await deps.alts.detect(tx, {
    member: stored.member,
    attempt: { ...stored.attempt, stockProfile: context.evidence.stockProfile ?? null },
    lookup: stored.candidates,
  });
  if (deps.linkedRoles?.enabled) for (const other of detected.madeCertainAlt ?? []) await queueRoleConnectionUpdate(tx, deps.outbox, other);
  return detected;
}

/**
 * Step 4, pure: how the sign-in ends and the Discord actions that follow. A member who ends a certain alt
 * (the button denies them, whatever holds them) or held for staff review says so on the attempt; someone
 * staff or an appeal already verified rejoins as Verified, everyone else starts Unverified.
 */
function decideEnding(
  context: SignInContext,
  member: SignedInMember,
  admitted: AdmissionGate | null,
  detected: { alts: DetectedAlt[]; isLinkedAsAlt: boolean },
  grant: RoleConnectionTokens | null,
): Ending {
  const { discordId } = context.identity;
  const { alts } = detected;
  const certainAlt = isCertainAlt({ manualAltStatus: member.manualAltStatus, isLinkedAsAlt: detected.isLinkedAsAlt });
  const facts = { vpnOutcome: context.outcome, certainAlt, gate: admitted?.gate?.action ?? null };
  const ended = websiteEnding(facts);
  const joinAs = joinRoles(ended, member.guildAccess);
  const joinWhy =
    joinAs[0] === 'verified'
      ? 'rejoined through the website, already verified'
      : 'signed in on the website to verify (Unverified until they complete verification)';
  // the line says how it really ended: a certain alt is denied, never announced as verified
  const outcomeLine = websiteOutcomeLine({
    ...facts,
    discordId,
    vpn: context.vpn,
    alts,
    markedByStaff: member.manualAltStatus === 'certain_alt',
  });
  const join: DiscordAction = {
    kind: 'add_guild_member',
    discordId,
    roles: joinAs,
    accessToken: context.accessToken,
    reason: auditLogReason(joinWhy),
    ...(grant ? { keepToken: true } : {}),
  };
  const rest: DiscordAction[] = [
    ...(grant ? [{ kind: 'role_connection' as const, discordId }] : []),
    ...(outcomeLine ? [outcomeLine] : []),
    // weak evidence (possible) is never announced as an alt
    ...alts.filter((alt) => countsAsAlt(alt.confidence)).map((alt) => altFoundLine(discordId, alt)),
  ];
  const actions: Ending['actions'] = admitted?.logLine ? [admitted.logLine, join, ...rest] : [join, ...rest];
  return { ended, attemptEnding: ended === 'denied_alt' || ended === 'pending' ? ended : null, actions };
}

/** The logs channel's line for an alt a sign-in found. */
function altFoundLine(discordId: string, alt: DetectedAlt): DiscordAction {
  const [main, other] = alt.memberIsAlt ? [alt.discordId, discordId] : [discordId, alt.discordId];
  return {
    kind: 'log_message',
    event: 'alt_detected',
    discordId,
    text: `🔎 Alt detected: <@${other}> is a ${alt.confidence}-confidence alt of <@${main}> (${alt.detectionMethod}).`,
    card: { for: 'alt', discordId: other, mainId: main },
    // a certain alt pings the alarm role, when the server set one
    ...(alt.confidence === 'certain' ? { alarm: true as const } : {}),
  };
}

/**
 * Step 5, the transaction's last statement, with COMMIT where the engine allows (nothing after it may
 * fail): the member's gate, the attempt's ending, the VPN cache entry, the caller's write and the Discord
 * actions (one multi-row insert) run alongside the audit row. Once the commit starts, a lost connection
 * leaves it unknown whether the sign-in was kept (`runUntilKept`).
 */
async function writeEnding(
  deps: SignInFlowDeps,
  tx: Executor,
  input: {
    context: SignInContext;
    member: SignedInMember;
    attempt: AttemptRow;
    gate: AdmissionGate | null;
    ending: Ending;
    alts: DetectedAlt[];
    grant: RoleConnectionTokens | null;
  },
  committing?: () => void,
): Promise<void> {
  const { context, ending } = input;
  const { discordId } = context.identity;
  const alongside = [
    ...(input.gate ? [setMemberGate(tx, input.member.id, input.gate.gate)] : []),
    ...(input.grant && deps.linkedRoles ? [saveGrantQuery(tx, deps.linkedRoles.sealKey, discordId, input.grant, context.now)] : []),
    ...(ending.attemptEnding ? [recordAttemptEnding(tx, input.attempt.id, ending.attemptEnding)] : []),
    ...vpnCacheWrite(tx, context.vpn),
    ...(context.alsoWrite ? [context.alsoWrite(tx, 'stored')] : []),
    deps.outbox.enqueueQuery(tx, ...ending.actions),
  ];
  const details = {
    // how it ended (websiteEnding); the VPN check's own outcome beside it
    outcome: ending.ended,
    vpnOutcome: context.outcome,
    vpnVerdict: context.vpn.verdict,
    vpnSource: context.vpn.source,
    vpnCheckFailed: context.vpn.checkFailed,
    alts: input.alts.map((a) => ({ discordId: a.discordId, confidence: a.confidence, method: a.detectionMethod })),
  };
  const audit = {
    actor: { type: 'visitor' as const, id: discordId },
    action: 'verification.completed',
    targetType: 'member',
    targetId: discordId,
    details,
  };
  await asLastStatement(tx, () => appendAudit(tx, audit, context.now, alongside), committing);
}

/** The VPN check's new provider verdict, cached by the verification's last statement (none when it came from the cache). */
function vpnCacheWrite(executor: Executor, vpn: VpnCheckResult): SQLWrapper[] {
  return vpn.cacheEntry ? [saveCachedVerdictQuery(executor, vpn.cacheEntry)] : [];
}

/** The operator's log lines for a committed website verification: how it ended, and each alt it found that counts. */
function logWebsiteEnding(
  logger: Logger,
  input: { discordId: string; ended: WebsiteEnding; alts: readonly DetectedAlt[]; vpnProvider: string | null },
): void {
  const { discordId } = input;
  if (input.ended === 'verified') logVerified(logger, { discordId, via: 'website' });
  else if (input.ended === 'limited_access')
    logLimited(logger, { discordId, why: input.vpnProvider ? `VPN (${input.vpnProvider})` : 'VPN or a server rule' });
  else if (input.ended === 'denied_alt') logDenied(logger, { discordId, why: 'certain alt' });
  else logHeld(logger, { discordId });
  for (const alt of input.alts) {
    if (alt.confidence === 'possible') continue;
    const [altId, mainId] = alt.memberIsAlt ? [discordId, alt.discordId] : [alt.discordId, discordId];
    logAltFound(logger, { altId, mainId, confidence: alt.confidence });
  }
}
