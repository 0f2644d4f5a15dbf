import { queueRoleConnectionUpdate, saveGrantQuery, type RoleConnectionTokens } from '../outbox/role-connection-grants.repository';
import { chooseBrowserToken, generateBrowserToken, hashBrowserToken, parseBrowserToken } from '../browser-token';
import { countsAsAlt } from '../../shared/alt-evidence-words';
import type { SQL, SQLWrapper } from 'drizzle-orm';
import type { AdmissionRead } from '../admission/admission.service';
import type { WindowAttempt } from '../raid/raid.repository';
import type { Clock } from '../../clock';
import type { Database, Executor } from '../../db/client';
import { retryOnConflict, retryOnLostConnection, retryWhileUncommitted } from '../../db/transaction-retry';
import { sqlState } from '../../db/db-errors';
import { asLastStatement } from '../../db/last-statement';
import type { Logger } from '../../logger';
import { AppError, BadRequest } from '../../errors';
import { looksStock, verifyFingerprint, type FingerprintData } from '../fingerprint';
import { hashFingerprintComponents, type FingerprintComponentHashes } from '../fingerprint/fingerprint-components';
import { createOneTimeTokens, hashToken } from './one-time-tokens.repository';
import { appendAudit } from '../audit/audit.repository';
import { auditLogReason } from '../outbox/audit-log-reason';
import type { DiscordAction, OutboxPort } from '../outbox/outbox.types';
import { decideVpnOutcome, isVpnVerdict } from '../vpn/vpn-outcome';
import { saveCachedVerdictQuery } from '../vpn/vpn-cache.repository';
import type { VpnCheckResult, VpnFailurePolicy, VpnOutcome } from '../vpn/vpn.types';
import { createCompleteButton, type CertainAltAction } from './complete-button';
import { isCertainAlt } from '../../shared/member-badges';
import { joinRoles, websiteEnding, websiteOutcomeLine, type WebsiteEnding } from './website-outcome';
import { logAltFound, logDenied, logHeld, logLimited, logVerified } from '../../operator-events';
import {
  confirmRulesAudited,
  findMemberRowByDiscordId,
  recordAttemptEnding,
  recordSignIn,
  signInAttemptKept,
  type AttemptEvidence,
  type AttemptRow,
  type SignedInMember,
  type SignInAttemptColumns,
  type VerifiedIdentity,
} from './verification.repository';
import type { DetectedAlt } from './detected-alt';

export type { DetectedAlt } from './detected-alt';

/** The operator's log lines for a committed website verification: how it ended, and each alt it found that counts. */
function logWebsiteEnding(logger: Logger, input: { discordId: string; ended: WebsiteEnding; alts: readonly DetectedAlt[]; vpnProvider: string | null }): void {
  const { discordId } = input;
  if (input.ended === 'verified') logVerified(logger, { discordId, via: 'website' });
  else if (input.ended === 'limited_access') logLimited(logger, { discordId, why: input.vpnProvider ? `VPN (${input.vpnProvider})` : 'VPN or a server rule' });
  else if (input.ended === 'denied_alt') logDenied(logger, { discordId, why: 'certain alt' });
  else logHeld(logger, { discordId });
  for (const alt of input.alts) {
    if (alt.confidence === 'possible') continue;
    const [altId, mainId] = alt.memberIsAlt ? [discordId, alt.discordId] : [alt.discordId, discordId];
    logAltFound(logger, { altId, mainId, confidence: alt.confidence });
  }
}

/** Alt detection as the verification flow needs it (src/modules/alts implements it). */
export interface AltDetector {
  /**
   * the alts found, and whether the member is now the alt side of a certain link; `lookup`:
   * the value `lookupQuery` gave in the sign-in's statement (the candidates are read then, not again)
   */
  detect(tx: Executor, input: { member: SignedInMember; attempt: AttemptRow & { stockProfile?: boolean | null }; lookup?: unknown }): Promise<{ alts: DetectedAlt[]; isLinkedAsAlt: boolean }>;
  /** the candidate lookup of an attempt as an SQL expression, for the sign-in's statement; null when there is nothing to look up by */
  lookupQuery(attempt: SignInAttemptColumns, memberId: SQL): SQL | null;
}

export interface VerificationResult {
  outcome: VpnOutcome;
  discordId: string;
  memberId: number | null;
  vpnProvider: string | null;
  alts: DetectedAlt[];
}

export const CONSENT_TOKEN_TTL_MS = 10 * 60 * 1000;
/** How long an OAuth state can be used; a sign-in callback's outcome is kept as long (callback-outcomes.repository.ts). */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

/** What the visitor's session keeps of a consent given: hashes and the browser's timezone only. */
export interface GivenConsent {
  at: number;
  fingerprintHash: string;
  /** keyed hash of the browser profile's token (src/modules/browser-token); absent when none was kept */
  browserTokenHash?: string;
  components: FingerprintComponentHashes;
  timezone: string;
  /** the profile looks like a stock phone (looksStock, judged from the collected values here; the values themselves are not kept) */
  stockProfile?: boolean;
}

/** How using up a live OAuth state ended: its first use, a use after the first, or a database that failed. */
export type SignInStateUse = 'ok' | 'state_replayed_or_expired' | 'state_check_failed';

const invalidConsentToken = () => new AppError(400, 'invalid_consent_token', 'Invalid or expired consent token', 'token');

const NO_EVIDENCE: AttemptEvidence = { ip: null, fingerprintHash: null, components: null, browserTokenHash: null };

/**
 * The heart of the visitor flow: one completed Discord sign-in becomes a member, an
 * attempt, alt links, the Discord actions that follow (guild join, log lines) and an
 * audit row, all in ONE transaction, so nothing a visitor completed is lost and
 * nothing half-done is kept.
 */
export function createVerificationService(deps: {
  database: Database;
  clock: Clock;
  logger: Logger;
  outbox: OutboxPort;
  alts: AltDetector;
  vpnFailurePolicy: VpnFailurePolicy;
  /** what the button does to an account that is a certain alt */
  certainAltAction: CertainAltAction;
  /** the key browser tokens are hashed with; without it no browser token is kept */
  browserTokenKey?: Buffer;
  /** the key consent tokens and OAuth states are signed with (the session cookie's) */
  tokenKey: Buffer;
  /** runs the outbox now instead of waiting for its next poll */
  nudgeOutbox?: () => void;
  /** Linked Roles: whether they are on (a grant is kept only then) and the key grants are sealed with (the outbox's) */
  linkedRoles?: { readonly enabled: boolean; sealKey: Buffer };
  /** counts outcomes (metrics) */
  onCompleted?: (outcome: VpnOutcome) => void;
  /** the raid check and the admission rules (lockdown, account age), run once the attempt is written */
  admission?: {
    /** the admission step's read, run inside the sign-in's statement, counting in the attempt that statement writes */
    readQuery(now: Date): Omit<AdmissionRead, 'row'> & { query: (written: WindowAttempt) => SQL };
    /** the gate, with its write and its log line left to the verification's last statement */
    admitDeferred(tx: Executor, input: { member: { id: number; discordId: string }; now: Date; read?: AdmissionRead }): Promise<{ gate: { action: 'limited' | 'review' } | null; writes: SQLWrapper[]; actions: DiscordAction[] }>;
  };
}) {
  const { db } = deps.database;
  const oneTimeTokens = createOneTimeTokens(deps.tokenKey);

  /**
   * Opens an OAuth state for its one use. What needs no database is answered at once: a state that
   * is not the one this session was given, or is forged or expired, is `refused`. Otherwise `useQuery`
   * is the write that uses it up, run by the callback's claim (callback-outcomes.repository.ts) in the
   * same statement that takes the callback: it returns a row on the state's first use only. `use` runs it
   * alone (a sign-in with no stored outcome, such as Linked Roles).
   */
  function openSignInState(
    state: string,
    sessionStateHash: string,
  ): { refused: 'state_mismatch' | 'state_replayed_or_expired' } | { useQuery: (executor: Executor) => SQLWrapper; use: (executor: Executor) => Promise<boolean> } {
    if (!state || hashToken(state) !== sessionStateHash) return { refused: 'state_mismatch' };
    const live = oneTimeTokens.open('oauth_state', state, deps.clock.now());
    if (!live) return { refused: 'state_replayed_or_expired' };
    return { useQuery: live.useQuery, use: live.use };
  }

  return {
    /** A single-use consent token; the session keeps its hash to bind the consent to the visitor. */
    issueConsentToken: () => oneTimeTokens.issue('consent', CONSENT_TOKEN_TTL_MS, deps.clock.now()),

    /**
     * Accepts a consent: the token must be the one this session was given and still live,
     * and the fingerprint hash must match its data. The token is used up only when all
     * else holds, so a visitor whose browser sent a bad hash can try again with it.
     * The browser token is set here, at consent and never before: the page's copy, else
     * the cookie's, else a new one (a malformed copy is ignored); the caller gives it back
     * to the browser, and the consent keeps only its keyed hash.
     */
    async acceptConsent(input: {
      sessionTokenHash: string | undefined;
      token: string;
      fingerprintData: FingerprintData;
      fingerprintHash: string;
      /** the page's copy of the browser token, unchecked (a malformed one is ignored) */
      browserTokenFromPage?: unknown;
      browserTokenFromCookie?: string | null;
    }): Promise<GivenConsent & { browserToken: string | null }> {
      const now = deps.clock.now();
      if (!input.sessionTokenHash || input.sessionTokenHash !== hashToken(input.token)) throw invalidConsentToken();
      if (!verifyFingerprint(input.fingerprintData, input.fingerprintHash)) {
        // a dead token is reported first, as if it had been checked first; a live one stays unused
        if (!(await oneTimeTokens.isLive(db, 'consent', input.token, now))) throw invalidConsentToken();
        throw BadRequest('Fingerprint hash does not match the fingerprint data', 'fingerprintHash');
      }
      // everything else checked: checking the token and using it up is one statement
      if (!(await oneTimeTokens.consume(db, 'consent', input.token, now))) throw invalidConsentToken();
      const browserToken = deps.browserTokenKey ? (chooseBrowserToken(input.browserTokenFromPage, parseBrowserToken(input.browserTokenFromCookie)) ?? generateBrowserToken()) : null;
      return {
        at: now.getTime(),
        fingerprintHash: input.fingerprintHash,
        ...(browserToken && deps.browserTokenKey ? { browserTokenHash: hashBrowserToken(deps.browserTokenKey, browserToken) } : {}),
        components: hashFingerprintComponents(input.fingerprintData),
        timezone: input.fingerprintData.timezone.slice(0, 64),
        stockProfile: looksStock(input.fingerprintData),
        browserToken,
      };
    },

    /** A single-use OAuth state for one Discord sign-in; the session keeps its hash. */
    issueSignInState: () => oneTimeTokens.issue('oauth_state', OAUTH_STATE_TTL_MS, deps.clock.now()),

    openSignInState,

    /**
     * `alsoWrite`: a write of the caller's that belongs with the verification (where the sign-in's callback
     * ended), run in its last statement with how it ended: stored together, or not at all.
     */
    async completeVerification(input: {
      identity: VerifiedIdentity;
      accessToken: string;
      /** the sign-in's grant for the member's role connection (scope role_connections.write), when it asked for one */
      roleConnectionGrant?: RoleConnectionTokens;
      vpn: VpnCheckResult;
      evidence: AttemptEvidence;
      alsoWrite?: (executor: Executor, ended: 'stored' | 'denied') => SQLWrapper;
    }): Promise<VerificationResult> {
      const now = deps.clock.now();
      const outcome = decideVpnOutcome(input.vpn, deps.vpnFailurePolicy);
      const usedVpn = isVpnVerdict(input.vpn.verdict);
      const { discordId } = input.identity;
      const visitor = { type: 'visitor' as const, id: discordId };

      if (outcome === 'denied') {
        // the log line and the audit row in one statement, which commits on its own
        const { db } = deps.database;
        const logLine = deps.outbox.enqueueQuery(db, { kind: 'log_message', event: 'denied', discordId, text: `⛔ <@${discordId}> was denied on the website: the VPN check could not be made and the policy is to deny.` });
        logDenied(deps.logger, { discordId, why: 'the VPN check could not be made and the policy is to deny' });
        await appendAudit(db, { actor: visitor, action: 'verification.denied', targetType: 'member', targetId: discordId, details: { reason: 'vpn_check_failed', policy: deps.vpnFailurePolicy } }, now, [...vpnCacheWrite(db, input.vpn), logLine, ...(input.alsoWrite ? [input.alsoWrite(db, 'denied')] : [])]);
        deps.nudgeOutbox?.();
        deps.onCompleted?.(outcome);
        return { outcome, discordId, memberId: null, vpnProvider: null, alts: [] };
      }

      const evidence = outcome === 'limited_access' ? NO_EVIDENCE : input.evidence;
      // The visitor's OAuth state is used up and Discord's code exchanged: a failed sign-in cannot be repeated
      // by the visitor without starting over. So a connection lost before the commit starts (a PostgreSQL
      // restart) runs the transaction again instead of sending them to 'Verification Failed'; one lost while
      // it commits is settled by reading whether its attempt was kept, and it runs again only if not.
      // how the committed sign-in ended, for the operator's log line (set by the run that commits)
      let endedAs: WebsiteEnding = 'verified';
      const signIn = (committing: (signedIn: VerificationResult) => void) => retryOnConflict(() => deps.database.db.transaction(async (tx) => {
        // the admission step's read (raid window, lockdown) runs in the sign-in's statement, counting in its attempt
        const admissionRead = deps.admission?.readQuery(now);
        // and so does the alt candidate lookup of a verified attempt (a Limited Access one keeps no evidence to look up by)
        const { member, attempt, admission, candidates } = await recordSignIn(
          tx,
          { identity: input.identity, outcome, vpn: input.vpn, usedVpn, evidence, now },
          { admission: admissionRead?.query, candidates: outcome === 'verified' ? deps.alts.lookupQuery : undefined },
        );
        const read: AdmissionRead | undefined = admissionRead && { settings: admissionRead.settings, countedPreviousDay: admissionRead.countedPreviousDay, row: admission as AdmissionRead['row'] };
        const admitted = (await deps.admission?.admitDeferred(tx, { member, now, read })) ?? { gate: null, writes: [], actions: [] };
        const { gate } = admitted;
        const detected = outcome === 'verified' ? await deps.alts.detect(tx, { member, attempt: { ...attempt, stockProfile: evidence.stockProfile ?? null }, lookup: candidates }) : { alts: [], isLinkedAsAlt: member.counters.isLinkedAsAlt };
        const { alts } = detected;
        // a verification that ends with the member a certain alt (the button denies them, whatever
        // holds them) or held for staff review says so on its attempt; the rest write nothing more
        const certainAlt = isCertainAlt({ manualAltStatus: member.manualAltStatus, isLinkedAsAlt: detected.isLinkedAsAlt });
        const ending = { vpnOutcome: outcome, certainAlt, gate: gate?.action ?? null };
        const ended = websiteEnding(ending);
        endedAs = ended;
        const attemptEnding = ended === 'denied_alt' || ended === 'pending' ? ended : null;
        // someone staff or an appeal already verified rejoins as Verified; everyone else starts Unverified
        const joinAs = joinRoles(ended, member.guildAccess);
        const joinWhy = joinAs[0] === 'verified' ? 'rejoined through the website, already verified' : 'signed in on the website to verify (Unverified until they complete verification)';
        // the line says how it really ended: a certain alt is denied, never announced as verified
        const outcomeLine = websiteOutcomeLine({ ...ending, discordId, vpn: input.vpn, alts, markedByStaff: member.manualAltStatus === 'certain_alt' });

        // the gate, the attempt's ending and the VPN cache entry, the Discord actions (the gate's log line first) and
        // the audit row: one statement, the flow's last write
        // Linked Roles on and granted: the grant is kept (sealed) to write the member's role connection now and after later decisions
        const grant = deps.linkedRoles?.enabled && input.roleConnectionGrant ? input.roleConnectionGrant : null;
        const writes = [
          ...admitted.writes,
          ...(grant && deps.linkedRoles ? [saveGrantQuery(tx, deps.linkedRoles.sealKey, discordId, grant, now)] : []),
          ...(attemptEnding ? [recordAttemptEnding(tx, attempt.id, attemptEnding)] : []),
          ...vpnCacheWrite(tx, input.vpn),
          ...(input.alsoWrite ? [input.alsoWrite(tx, 'stored')] : []),
        ];
        const actions: DiscordAction[] = [
          ...admitted.actions,
          { kind: 'add_guild_member', discordId, roles: joinAs, accessToken: input.accessToken, reason: auditLogReason(joinWhy), ...(grant ? { keepToken: true } : {}) },
          ...(grant ? [{ kind: 'role_connection' as const, discordId }] : []),
          ...(outcomeLine ? [outcomeLine] : []),
          ...alts
            // weak evidence (possible) is never announced as an alt
            .filter((alt) => countsAsAlt(alt.confidence))
            .map((alt) => {
              const [main, other] = alt.memberIsAlt ? [alt.discordId, discordId] : [discordId, alt.discordId];
              return {
                kind: 'log_message' as const,
                event: 'alt_detected' as const,
                discordId,
                text: `🔎 Alt detected: <@${other}> is a ${alt.confidence}-confidence alt of <@${main}> (${alt.detectionMethod}).`,
                card: { for: 'alt' as const, discordId: other, mainId: main },
                // a certain alt pings the alarm role, when the server set one
                ...(alt.confidence === 'certain' ? { alarm: true as const } : {}),
              };
            }),
        ];
        // never empty: the guild join and its log line are always there
        const queued = deps.outbox.enqueueQuery(tx, actions[0]!, ...actions.slice(1));
        const signedIn: VerificationResult = { outcome, discordId, memberId: member.id, vpnProvider: usedVpn ? input.vpn.provider : null, alts };
        // the transaction's last statement, with COMMIT where the engine allows (nothing after it may fail); once
        // the commit starts, a lost connection leaves it unknown whether the sign-in was kept: the attempt it wrote,
        // read on a fresh connection, tells (below)
        await asLastStatement(tx, () => appendAudit(
          tx,
          {
            actor: visitor,
            action: 'verification.completed',
            targetType: 'member',
            targetId: discordId,
            details: {
              // how it ended (websiteEnding); the VPN check's own outcome beside it
              outcome: ended,
              vpnOutcome: outcome,
              vpnVerdict: input.vpn.verdict,
              vpnSource: input.vpn.source,
              vpnCheckFailed: input.vpn.checkFailed,
              alts: alts.map((a) => ({ discordId: a.discordId, confidence: a.confidence, method: a.detectionMethod })),
            },
          },
          now,
          [...writes, queued],
        ), () => committing(signedIn));
        return signedIn;
      }));
      const result = await retryWhileUncommitted(signIn, {
        onRetry: (attempt, error) => deps.logger.warn({ attempt, sqlState: sqlState(error) }, 'the database connection was lost during a sign-in; running it again'),
        // the commit's answer was lost: kept if the attempt it wrote (this member's, at this sign-in's time) is there
        wasKept: async () => {
          const kept = await signInAttemptKept(deps.database.db, discordId, now);
          deps.logger.warn(`the database connection was lost while a sign-in committed; ${kept ? 'it was kept' : 'it was not kept, running it again'}`);
          return kept;
        },
      });
      logWebsiteEnding(deps.logger, { discordId, ended: endedAs, alts: result.alts, vpnProvider: input.vpn.provider });
      deps.nudgeOutbox?.();
      deps.onCompleted?.(outcome);
      return result;
    },

    /** False when the visitor has no member record. */
    async confirmRules(discordId: string): Promise<boolean> {
      const now = deps.clock.now();
      // tried again when the database connection was lost: a second run is what the visitor's second click
      // would do (the same confirmation, audited once more), and saves them the error
      const confirmed = await retryOnLostConnection(() => confirmRulesAudited(deps.database.db, discordId, now));
      // Linked Roles: the confirmation can make the member verified; their connection follows. Its own
      // statement after the confirmation, which stands whatever becomes of it (the button queues another);
      // none at all while Linked Roles are off (the confirmation stays one statement)
      if (confirmed && deps.linkedRoles?.enabled) {
        await queueRoleConnectionUpdate(deps.database.db, deps.outbox, discordId).then(
          (queued) => queued && deps.nudgeOutbox?.(),
          (error: unknown) => deps.logger.warn({ err: error, discordId }, 'Linked Roles: the role connection update after the rules confirmation was not queued'),
        );
      }
      return confirmed;
    },

    findMember: (discordId: string) => findMemberRowByDiscordId(deps.database.db, discordId),

    /** The 'Complete Verification!' button's decision, recorded with its Discord actions. */
    completeAtButton: createCompleteButton(deps),
  };
}

/** The VPN check's new provider verdict, cached by the verification's last statement (none when it came from the cache). */
function vpnCacheWrite(executor: Executor, vpn: VpnCheckResult): SQLWrapper[] {
  return vpn.cacheEntry ? [saveCachedVerdictQuery(executor, vpn.cacheEntry)] : [];
}

export type VerificationService = ReturnType<typeof createVerificationService>;
