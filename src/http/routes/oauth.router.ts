import express, { type Request, type Response, type Router } from 'express';
import type { Clock } from '../../clock';
import type { Logger } from '../../logger';
import {
  APPEAL_SCOPES,
  createPkcePair,
  LINKED_ROLES_SCOPES,
  VERIFY_SCOPES,
  VERIFY_WITH_LINKED_ROLES_SCOPES,
  type DiscordOAuth,
} from '../../discord/oauth-client';
import type { Database, Executor } from '../../db/client';
import type { LinkedRolesRegistration } from '../../discord/linked-roles-registration';
import { createLinkedRolesSignIn } from '../../modules/linked-roles';
import { htmlPage } from '../html-page';
import { resolveClientIp } from '../../modules/network';
import {
  createSignInFlow,
  parseSignInResult,
  SIGN_IN_EXCHANGE_BUDGET_MS,
  storedSignInResult,
  type SandboxNetworkPort,
  type SignInResult,
  type VpnCheckPort,
  OAUTH_STATE_TTL_MS,
  type VerificationService,
  createCallbackOutcomes,
  type CallbackClaim,
  hashToken,
} from '../../modules/verification';
import { readVisitor, writeVisitor } from '../visitor-session';
import { createPendingSignIns, PENDING_RESULT_AFTER_EXCHANGE_MS } from './pending-sign-ins';
import { finishingSignInPage, retrySignInPage } from './sign-in-pages';
import { APPEAL_SIGN_IN_RUNNING_MS, createAppealSignIn, parseAppealSignInResult, type AppealSignInResult } from '../../modules/appeals';

/** consent older than this must be given again before signing in */
const CONSENT_MAX_AGE_MS = 30 * 60 * 1000;

export type { SandboxNetworkPort, VpnCheckPort };

/**
 * One callback's state and code as one hash: the same callback again is recognised without
 * the session keeping the code (a hash of a single-use code gives nothing back).
 */
function hashCallback(state: string, code: string): string {
  return hashToken(`${state}\n${code}`);
}

/** How long the callback itself waits for the sign-in before showing "Finishing sign-in…". */
const INLINE_WAIT_MS = 2_500;
/** How long one check of /oauth/finish waits for the sign-in before answering the page again. */
const POLL_WAIT_MS = 1_500;
/** Past the exchange budget, how long the rest of a sign-in (identity, VPN check, storing) may take before a repeat gives it up as lost. */
const AFTER_EXCHANGE_MS = 30_000;

type SignInRef = { id: string; callbackHash: string; stateHash?: string };

/**
 * GET /oauth/start and /oauth/callback: state bound to the
 * session and single use, PKCE S256, scopes identify + guilds.join (the appeal sign-in, GET
 * /oauth/appeal: identify only). Any failure before
 * the verification is stored sends the visitor to /error; nothing is written then.
 *
 * The callback hands the code to a server-side job and waits briefly; when Discord rate
 * limits the exchange, the visitor sees "Finishing sign-in…" (GET /oauth/finish, which
 * reloads itself) while the job waits out Retry-After. A code that cannot be exchanged
 * in time ends on GET /oauth/retry: one button to sign in again, consent kept.
 */
export function oauthRouter(deps: {
  clock: Clock;
  logger: Logger;
  /** where each callback's outcome is kept for every web process (table sign_in_callbacks) */
  db: Executor;
  oauth: DiscordOAuth;
  vpn: VpnCheckPort;
  verification: VerificationService;
  ipHashKey: Buffer;
  publicUrl?: string;
  sandboxNetwork?: SandboxNetworkPort;
  limit: express.RequestHandler;
  /** how long a rate-limited code exchange is retried (tests shorten it) */
  exchangeBudgetMs?: number;
  /** revokes an access token in the background once it has done its job (the appeal sign-in's, once read) */
  revokeAccessToken?: (accessToken: string) => void;
  /** Linked Roles (GET /linked-roles): the member records it reads and the metadata registration; absent: the page is off */
  linkedRoles?: {
    database: Database;
    registration: LinkedRolesRegistration;
    grants?: Parameters<typeof createLinkedRolesSignIn>[0]['grants'];
  };
}): Router {
  const router = express.Router();
  const redirectUri = (req: Request) => `${deps.publicUrl ?? `${req.protocol}://${req.get('host')}`}/oauth/callback`;
  const fail = (req: Request, res: Response, reason: string, extra: Record<string, unknown> = {}) => {
    deps.logger.warn({ reason, ...extra }, 'verification sign-in failed');
    writeVisitor(req, (v) => ({ ...(v.verified ? { verified: v.verified } : {}) }));
    res.redirect(303, '/error');
  };
  const exchangeBudgetMs = deps.exchangeBudgetMs ?? SIGN_IN_EXCHANGE_BUDGET_MS;
  const finishSignIn = createSignInFlow({ ...deps, exchangeBudgetMs });
  // a finished job is kept a minute past the budget for the visitor's next check to collect it
  const pending = createPendingSignIns({ keepMs: exchangeBudgetMs + PENDING_RESULT_AFTER_EXCHANGE_MS });
  // the same, for every web process: a repeat that reaches another process finds the first's outcome there
  const outcomes = createCallbackOutcomes<SignInResult>({
    ...deps,
    kind: 'visitor',
    runningMs: exchangeBudgetMs + AFTER_EXCHANGE_MS,
    keepMs: OAUTH_STATE_TTL_MS,
    parse: parseSignInResult,
  });

  const html = (res: Response, body: string) => {
    res.status(200).set('Cache-Control', 'no-store').type('html').send(body);
  };
  /**
   * Maps a finished sign-in to where the visitor goes next. The session remembers where the
   * sign-in of this callback (state and code) ended, so the same callback again lands there again.
   */
  const conclude = (req: Request, res: Response, result: SignInResult, callbackHash: string) => {
    if (result.kind === 'verified') {
      writeVisitor(req, () => ({
        verified: { discordId: result.discordId, at: deps.clock.now().getTime() },
        callback: { callbackHash, landedOn: '/rules' },
      }));
      res.redirect(303, '/rules');
      return;
    }
    if (!result.retryable) {
      deps.logger.warn({ reason: result.reason, ...result.detail }, 'verification sign-in failed');
      writeVisitor(req, (v) => ({ ...(v.verified ? { verified: v.verified } : {}), callback: { callbackHash, landedOn: '/error' } }));
      res.redirect(303, '/error');
      return;
    }
    deps.logger.warn({ reason: result.reason, ...result.detail }, 'verification sign-in not finished, offering a new sign-in');
    // consent stays: the retry page's one button starts a new sign-in straight away
    writeVisitor(req, (v) => ({
      ...(v.consent ? { consent: v.consent } : {}),
      ...(v.verified ? { verified: v.verified } : {}),
      callback: { callbackHash, landedOn: '/oauth/retry' },
    }));
    res.redirect(303, '/oauth/retry');
  };
  const jobLost: SignInResult = { kind: 'failed', reason: 'sign_in_job_lost', retryable: true };
  /**
   * Answers with what became of a sign-in another request took (on any process): its outcome, or
   * "Finishing sign-in…" while it runs (the session then waits for it), or a new sign-in when it was lost.
   */
  const landOn = (
    req: Request,
    res: Response,
    taken: Exclude<CallbackClaim<SignInResult>, { kind: 'claimed' }>,
    signIn: SignInRef & { stateHash: string },
  ) => {
    if (taken.kind === 'done') return conclude(req, res, taken.outcome, signIn.callbackHash);
    if (taken.kind === 'other_code') return fail(req, res, 'state_replayed_or_expired');
    if (taken.kind !== 'running') return conclude(req, res, jobLost, signIn.callbackHash);
    awaitSignIn(req, signIn);
    return html(res, finishingSignInPage());
  };
  /** Waits up to `waitMs` for the session's sign-in: its outcome, or the "Finishing sign-in…" page. */
  const settle = async (req: Request, res: Response, signIn: SignInRef, waitMs: number) => {
    const result = signIn.id ? await pending.settle(signIn.id, waitMs) : 'unknown';
    if (result === 'pending') return html(res, finishingSignInPage());
    if (result !== 'unknown') return conclude(req, res, result, signIn.callbackHash);
    // not a job of this process: another web process may be finishing it, or has
    if (!signIn.stateHash) return conclude(req, res, jobLost, signIn.callbackHash);
    return landOn(req, res, await outcomes.wait(signIn.stateHash, signIn.callbackHash, waitMs), { ...signIn, stateHash: signIn.stateHash });
  };
  /** Records in the session the sign-in being finished (its job and its callback), dropping the OAuth round trip it used. */
  const awaitSignIn = (req: Request, signIn: SignInRef) =>
    writeVisitor(req, (v) => ({
      consent: v.consent,
      ...(v.verified ? { verified: v.verified } : {}),
      signIn: { ...signIn, at: deps.clock.now().getTime() },
    }));

  router.get('/oauth/start', deps.limit, (req, res) => {
    const now = deps.clock.now();
    const visitor = readVisitor(req);
    if (!visitor.consent || now.getTime() - visitor.consent.at > CONSENT_MAX_AGE_MS) {
      res.redirect(303, '/');
      return;
    }
    const { token: state, tokenHash } = deps.verification.issueSignInState();
    const pkce = createPkcePair();
    writeVisitor(req, (v) => ({ ...v, oauth: { stateHash: tokenHash, verifier: pkce.verifier, at: now.getTime() } }));
    // Linked Roles on: the member also grants the right to write their role connection ("Verified with Gatekeeper")
    const linkedRolesOn = (deps.linkedRoles?.registration.state().state ?? 'off') !== 'off';
    res.redirect(
      303,
      deps.oauth.authorizeUrl({
        state,
        codeChallenge: pkce.challenge,
        redirectUri: redirectUri(req),
        scopes: linkedRolesOn ? VERIFY_WITH_LINKED_ROLES_SCOPES : VERIFY_SCOPES,
      }),
    );
  });

  // "Sign in with Discord again" from the appeal page: identifies the visitor, verifies nothing
  const appealSignIn = createAppealSignIn({
    ...deps,
    outcomes: createCallbackOutcomes<AppealSignInResult>({
      ...deps,
      kind: 'appeal',
      runningMs: APPEAL_SIGN_IN_RUNNING_MS,
      keepMs: OAUTH_STATE_TTL_MS,
      parse: parseAppealSignInResult,
    }),
  });
  router.get('/oauth/appeal', deps.limit, (req, res) => {
    const { token: state, tokenHash } = appealSignIn.start();
    const pkce = createPkcePair();
    writeVisitor(req, (v) => ({ ...v, appealSignIn: { stateHash: tokenHash, verifier: pkce.verifier, at: deps.clock.now().getTime() } }));
    // identify only: the appeal sign-in reads who the visitor is and adds them nowhere
    res.redirect(
      303,
      deps.oauth.authorizeUrl({ state, codeChallenge: pkce.challenge, redirectUri: redirectUri(req), scopes: APPEAL_SCOPES }),
    );
  });

  // the Linked Roles Verification URL: Discord's role menu sends members here to connect "Verified with Gatekeeper"
  const linkedRoles = deps.linkedRoles;
  const linkedRolesSignIn =
    linkedRoles &&
    createLinkedRolesSignIn({
      database: linkedRoles.database,
      oauth: deps.oauth,
      verification: deps.verification,
      revokeAccessToken: deps.revokeAccessToken,
      grants: linkedRoles.grants,
    });
  router.get('/linked-roles', deps.limit, async (req, res) => {
    const state = linkedRoles?.registration.state() ?? { state: 'off' as const };
    if (!linkedRoles || !linkedRolesSignIn || state.state === 'off') {
      res.status(404).set('Cache-Control', 'no-store').type('html').send(linkedRolesPage('off'));
      return;
    }
    await linkedRoles.registration.ensure();
    const now = linkedRoles.registration.state();
    if (now.state === 'unavailable') {
      res.status(503).set('Cache-Control', 'no-store').type('html').send(linkedRolesPage('unavailable'));
      return;
    }
    const { token, tokenHash } = linkedRolesSignIn.start();
    const pkce = createPkcePair();
    writeVisitor(req, (v) => ({
      ...v,
      linkedRolesSignIn: { stateHash: tokenHash, verifier: pkce.verifier, at: deps.clock.now().getTime() },
    }));
    res.redirect(
      303,
      deps.oauth.authorizeUrl({ state: token, codeChallenge: pkce.challenge, redirectUri: redirectUri(req), scopes: LINKED_ROLES_SCOPES }),
    );
  });
  router.get('/linked-roles/done', (req, res) => {
    const result = req.query.result;
    html(res, linkedRolesPage(result === 'verified' ? 'verified' : result === 'not_verified' ? 'not_verified' : 'failed'));
  });

  router.get('/oauth/callback', deps.limit, async (req, res) => {
    const visitor = readVisitor(req);
    const query = req.query as Record<string, unknown>;
    const state = typeof query.state === 'string' ? query.state : '';
    const code = typeof query.code === 'string' ? query.code : '';
    const callbackHash = state && code ? hashCallback(state, code) : '';
    const stateHash = state ? hashToken(state) : '';

    if (
      linkedRolesSignIn &&
      visitor.linkedRolesSignIn &&
      linkedRolesSignIn.isLinkedRolesState(state, visitor.linkedRolesSignIn.stateHash)
    ) {
      const started = visitor.linkedRolesSignIn;
      writeVisitor(req, ({ linkedRolesSignIn: _done, ...rest }) => rest);
      const result =
        typeof query.error === 'string'
          ? ({ kind: 'failed', reason: 'oauth_denied' } as const)
          : await linkedRolesSignIn.finish({
              state,
              sessionStateHash: started.stateHash,
              code,
              codeVerifier: started.verifier,
              redirectUri: redirectUri(req),
            });
      if (result.kind === 'failed') deps.logger.warn({ reason: result.reason }, 'Linked Roles sign-in failed');
      res.redirect(303, `/linked-roles/done?result=${result.kind === 'failed' ? 'failed' : result.verified ? 'verified' : 'not_verified'}`);
      return;
    }

    if (visitor.appealSignIn && appealSignIn.isAppealState(state, visitor.appealSignIn.stateHash)) {
      const pendingAppeal = visitor.appealSignIn;
      const result =
        typeof query.error === 'string'
          ? ({ kind: 'failed', reason: 'oauth_denied' } as const)
          : await appealSignIn.finish({
              state,
              sessionStateHash: pendingAppeal.stateHash,
              code,
              codeVerifier: pendingAppeal.verifier,
              redirectUri: redirectUri(req),
              callbackHash,
            });
      const landedOn = result.kind === 'failed' ? '/appeal?signIn=failed' : '/appeal';
      if (result.kind === 'failed') deps.logger.warn({ reason: result.reason }, 'appeal sign-in failed');
      writeVisitor(req, ({ appealSignIn: _done, ...rest }) => ({
        ...rest,
        ...(result.kind === 'identified' ? { appellant: { discordId: result.discordId, at: deps.clock.now().getTime() } } : {}),
        ...(callbackHash ? { appealCallback: { callbackHash, landedOn } } : {}),
      }));
      res.redirect(303, landedOn);
      return;
    }
    // the same appeal callback again after it ended (a reload with the cookie of its answer): where it ended
    if (callbackHash && visitor.appealCallback?.callbackHash === callbackHash) {
      res.redirect(303, visitor.appealCallback.landedOn);
      return;
    }

    // the same callback again (a reload of "Finishing sign-in…", a double click, the browser resending it):
    // the same job and the same result for this visitor, never a second code exchange (Discord's codes are single use)
    if (callbackHash && visitor.callback?.callbackHash === callbackHash) {
      res.redirect(303, visitor.callback.landedOn);
      return;
    }
    if (callbackHash && visitor.signIn?.callbackHash === callbackHash)
      return settle(req, res, { ...visitor.signIn, callbackHash }, INLINE_WAIT_MS);
    // the same callback while the first is still at work in this process, from this same session (its OAuth round trip not yet dropped)
    const running = callbackHash && visitor.oauth?.stateHash === stateHash ? pending.findByCallback(callbackHash) : null;
    if (running) {
      awaitSignIn(req, { id: running, callbackHash, stateHash });
      return settle(req, res, { id: running, callbackHash, stateHash }, INLINE_WAIT_MS);
    }

    if (typeof query.error === 'string') return fail(req, res, 'oauth_denied', { error: query.error.slice(0, 64) });
    if (!visitor.oauth || !visitor.consent) return fail(req, res, 'no_flow_in_session');
    if (!code || code.length > 512) return fail(req, res, 'missing_code');
    // a state that is not this session's, forged or expired is refused here; a live one is used up
    // while Discord exchanges the code, and the sign-in goes on only if this was its first use
    // a state that is not this session's, forged or expired is refused here
    const stateCheck = deps.verification.openSignInState(state, visitor.oauth.stateHash);
    if ('refused' in stateCheck) return fail(req, res, stateCheck.refused);
    // one statement uses the state up and takes the callback in the database, so that the same callback again
    // on another web process (which has no memory of this one) waits for this sign-in or lands where it ended,
    // and Discord's single-use code is exchanged once
    const claim = await outcomes.claim(stateHash, callbackHash, stateCheck.useQuery);
    if (claim.kind === 'unavailable')
      return conclude(req, res, { kind: 'failed', reason: 'state_check_failed', retryable: true }, callbackHash);
    if (claim.kind !== 'claimed') {
      if (claim.kind !== 'running') return landOn(req, res, claim, { id: '', callbackHash, stateHash });
      awaitSignIn(req, { id: '', callbackHash, stateHash });
      return settle(req, res, { id: '', callbackHash, stateHash }, INLINE_WAIT_MS);
    }
    const outcome = {
      write: (executor: Executor, result: SignInResult) => outcomes.write(executor, stateHash, storedSignInResult(result)),
      record: (result: SignInResult) => outcomes.record(stateHash, storedSignInResult(result)),
    };

    const consent = visitor.consent;
    const stateUse = Promise.resolve(claim.stateUsed ? ('ok' as const) : ('state_replayed_or_expired' as const));
    const input = {
      code,
      codeVerifier: visitor.oauth.verifier,
      redirectUri: redirectUri(req),
      clientIp: resolveClientIp(req),
      consent,
      stateUse,
      outcome,
    };
    const id = pending.start(callbackHash, () => finishSignIn(input));
    if (!id) {
      const busy: SignInResult = { kind: 'failed', reason: 'too_many_pending_sign_ins', retryable: true };
      await outcome.record(busy);
      return conclude(req, res, busy, callbackHash);
    }
    awaitSignIn(req, { id, callbackHash, stateHash });
    await settle(req, res, { id, callbackHash, stateHash }, INLINE_WAIT_MS);
  });

  router.get('/oauth/finish', async (req, res) => {
    const visitor = readVisitor(req);
    if (visitor.signIn) return settle(req, res, { ...visitor.signIn, callbackHash: visitor.signIn.callbackHash ?? '' }, POLL_WAIT_MS);
    // checked again after the sign-in ended (a second tab, a reload): where it ended
    if (visitor.callback) return res.redirect(303, visitor.callback.landedOn);
    return fail(req, res, 'no_sign_in_in_session');
  });

  router.get('/oauth/retry', (req, res) => {
    html(res, retrySignInPage());
  });

  return router;
}

/** The Linked Roles pages: off, unavailable, and how a sign-in ended. */
function linkedRolesPage(kind: 'off' | 'unavailable' | 'verified' | 'not_verified' | 'failed'): string {
  switch (kind) {
    case 'off':
      return htmlPage(
        'Linked Roles are off',
        '<h1>Linked Roles are off</h1><p>This server does not offer "Verified with Gatekeeper" as a Linked Role.</p>',
      );
    case 'unavailable':
      return htmlPage(
        'Linked Roles unavailable',
        "<h1>Linked Roles are unavailable right now</h1><p>Discord did not accept Gatekeeper's Linked Roles set-up; the server's staff can see why on their dashboard. Verification itself works as usual. Try again later.</p>",
      );
    case 'verified':
      return htmlPage(
        'Connected',
        '<h1>Connected: Verified with Gatekeeper</h1><p>Your Discord profile now shows your Gatekeeper verification. Go back to Discord: roles that require it are yours to pick.</p>',
      );
    case 'not_verified':
      return htmlPage(
        'Connected, not verified',
        `<h1>Connected, not verified yet</h1><p>Gatekeeper has no completed verification for this account, so roles that require it stay closed. Verify first <a href="/">on this site</a> and in the server, then connect again from Discord's role menu.</p>`,
      );
    case 'failed':
      return htmlPage(
        'Could not connect',
        "<h1>Could not connect</h1><p>The sign-in with Discord did not finish. Nothing was changed. Try again from Discord's role menu.</p>",
      );
  }
}
