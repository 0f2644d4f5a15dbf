import { chooseBrowserToken, generateBrowserToken, hashBrowserToken, parseBrowserToken } from '../browser-token';
import type { SQLWrapper } from 'drizzle-orm';
import type { Clock } from '../../clock';
import type { Database, Executor } from '../../db/client';
import { retryOnLostConnection } from '../../db/transaction-retry';
import type { Logger } from '../../logger';
import { AppError, BadRequest } from '../../errors';
import {
  looksStock,
  verifyFingerprint,
  type FingerprintData,
  hashFingerprintComponents,
  type FingerprintComponentHashes,
} from '../fingerprint';
import { createOneTimeTokens, hashToken } from './one-time-tokens.repository';
import { type OutboxPort, queueRoleConnectionUpdate } from '../outbox';
import type { VpnFailurePolicy, VpnOutcome } from '../vpn';
import { createButtonFlow, type CertainAltAction } from './button-flow';
import { confirmRulesAudited, findMemberRowByDiscordId } from './verification.repository';
import { createSignInFlow, type AdmissionPort, type AltDetector, type VerificationResult } from './sign-in-flow';

export type { DetectedAlt } from './detected-alt';

export type { AltDetector, VerificationResult };

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
  /** counts outcomes (metrics) */
  onCompleted?: (outcome: VpnOutcome) => void;
  /** the raid check and the admission rules (lockdown, account age), run once the attempt is written */
  admission?: AdmissionPort;
  /** Linked Roles: whether they are on (a grant is kept only then) and the key grants are sealed with (the outbox's) */
  linkedRoles?: { readonly enabled: boolean; sealKey: Buffer };
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
  /** Whether `state` is the OAuth state this session was given (the session keeps only its hash). */
  function isSessionSignInState(state: string, sessionStateHash: string | undefined): boolean {
    return Boolean(state && sessionStateHash && hashToken(state) === sessionStateHash);
  }

  function openSignInState(
    state: string,
    sessionStateHash: string,
  ):
    | { refused: 'state_mismatch' | 'state_replayed_or_expired' }
    | { useQuery: (executor: Executor) => SQLWrapper; use: (executor: Executor) => Promise<boolean> } {
    if (!isSessionSignInState(state, sessionStateHash)) return { refused: 'state_mismatch' };
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
      const browserToken = deps.browserTokenKey
        ? (chooseBrowserToken(input.browserTokenFromPage, parseBrowserToken(input.browserTokenFromCookie)) ?? generateBrowserToken())
        : null;
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

    isSessionSignInState,
    openSignInState,

    /** A completed Discord sign-in recorded, with the Discord actions that follow (sign-in-flow.ts). */
    completeVerification: createSignInFlow(deps),

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
          (error: unknown) =>
            deps.logger.warn(
              { err: error, discordId },
              'Linked Roles: the role connection update after the rules confirmation was not queued',
            ),
        );
      }
      return confirmed;
    },

    findMember: (discordId: string) => findMemberRowByDiscordId(deps.database.db, discordId),

    /** The 'Complete Verification!' button's decision, recorded with its Discord actions. */
    completeAtButton: createButtonFlow(deps),
  };
}

export type VerificationService = ReturnType<typeof createVerificationService>;
