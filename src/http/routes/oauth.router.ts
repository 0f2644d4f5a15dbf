import express, { type Request, type Response, type Router } from 'express';
import type { Clock } from '../../clock';
import type { Logger } from '../../logger';
import { APPEAL_SCOPES, createPkcePair, LINKED_ROLES_SCOPES, type DiscordOAuth } from '../../discord/oauth-client';
import type { Database } from '../../db/client';
import type { LinkedRolesRegistration } from '../../discord/linked-roles-registration';
import { createLinkedRolesSignIn } from '../../modules/linked-roles/linked-roles-sign-in';
import { htmlPage } from '../html-page';
import { resolveClientIp } from '../../modules/network';
import { createSignInFlow, SIGN_IN_EXCHANGE_BUDGET_MS, type SandboxNetworkPort, type SignInResult, type VpnCheckPort } from '../../modules/verification/sign-in';
import type { VerificationService } from '../../modules/verification/verification.service';
import { readVisitor, writeVisitor } from '../visitor-session';
import { createPendingSignIns } from './pending-sign-ins';
import { finishingSignInPage, retrySignInPage } from './sign-in-pages';
import { createAppealSignIn } from '../../modules/appeals/appeal-sign-in';
import { hashToken } from '../../modules/verification/one-time-tokens.repository';

/** consent older than this must be given again before signing in */
const CONSENT_MAX_AGE_MS = 30 * 60 * 1000;

export type { SandboxNetworkPort, VpnCheckPort } from '../../modules/verification/sign-in';

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
  linkedRoles?: { database: Database; registration: LinkedRolesRegistration };
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
  const pending = createPendingSignIns({ keepMs: exchangeBudgetMs + 60_000 });

  const html = (res: Response, body: string) => {
    res.status(200).set('Cache-Control', 'no-store').type('html').send(body);
  };
  /**
   * Maps a finished sign-in to where the visitor goes next. The session remembers where the
   * sign-in of this callback (state and code) ended, so the same callback again lands there again.
   */
  const conclude = (req: Request, res: Response, result: SignInResult, callbackHash: string) => {
    if (result.kind === 'verified') {
      writeVisitor(req, () => ({ verified: { discordId: result.discordId, at: deps.clock.now().getTime() }, callback: { callbackHash, landedOn: '/rules' } }));
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
    writeVisitor(req, (v) => ({ ...(v.consent ? { consent: v.consent } : {}), ...(v.verified ? { verified: v.verified } : {}), callback: { callbackHash, landedOn: '/oauth/retry' } }));
    res.redirect(303, '/oauth/retry');
  };
  /** Waits up to `waitMs` for the session's sign-in: its outcome, or the "Finishing sign-in…" page. */
  const settle = async (req: Request, res: Response, signIn: { id: string; callbackHash: string }, waitMs: number) => {
    const result = await pending.settle(signIn.id, waitMs);
    if (result === 'pending') return html(res, finishingSignInPage());
    if (result === 'unknown') return conclude(req, res, { kind: 'failed', reason: 'sign_in_job_lost', retryable: true }, signIn.callbackHash);
    return conclude(req, res, result, signIn.callbackHash);
  };
  /** Records in the session the sign-in being finished (its job and its callback), dropping the OAuth round trip it used. */
  const awaitSignIn = (req: Request, signIn: { id: string; callbackHash: string }) =>
    writeVisitor(req, (v) => ({ consent: v.consent, ...(v.verified ? { verified: v.verified } : {}), signIn: { ...signIn, at: deps.clock.now().getTime() } }));

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
    res.redirect(303, deps.oauth.authorizeUrl({ state, codeChallenge: pkce.challenge, redirectUri: redirectUri(req) }));
  });

  // "Sign in with Discord again" from the appeal page: identifies the visitor, verifies nothing
  const appealSignIn = createAppealSignIn(deps);
  router.get('/oauth/appeal', deps.limit, (req, res) => {
    const { token: state, tokenHash } = appealSignIn.start();
    const pkce = createPkcePair();
    writeVisitor(req, (v) => ({ ...v, appealSignIn: { stateHash: tokenHash, verifier: pkce.verifier, at: deps.clock.now().getTime() } }));
    // identify only: the appeal sign-in reads who the visitor is and adds them nowhere
    res.redirect(303, deps.oauth.authorizeUrl({ state, codeChallenge: pkce.challenge, redirectUri: redirectUri(req), scopes: APPEAL_SCOPES }));
  });

  // the Linked Roles Verification URL: Discord's role menu sends members here to connect "Verified with Gatekeeper"
  const linkedRoles = deps.linkedRoles;
  const linkedRolesSignIn = linkedRoles && createLinkedRolesSignIn({ database: linkedRoles.database, oauth: deps.oauth, verification: deps.verification, revokeAccessToken: deps.revokeAccessToken });
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
    writeVisitor(req, (v) => ({ ...v, linkedRolesSignIn: { stateHash: tokenHash, verifier: pkce.verifier, at: deps.clock.now().getTime() } }));
    res.redirect(303, deps.oauth.authorizeUrl({ state: token, codeChallenge: pkce.challenge, redirectUri: redirectUri(req), scopes: LINKED_ROLES_SCOPES }));
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

    if (linkedRolesSignIn && visitor.linkedRolesSignIn && linkedRolesSignIn.isLinkedRolesState(state, visitor.linkedRolesSignIn.stateHash)) {
      const started = visitor.linkedRolesSignIn;
      writeVisitor(req, ({ linkedRolesSignIn: _done, ...rest }) => rest);
      const result = typeof query.error === 'string'
        ? ({ kind: 'failed', reason: 'oauth_denied' } as const)
        : await linkedRolesSignIn.finish({ state, sessionStateHash: started.stateHash, code, codeVerifier: started.verifier, redirectUri: redirectUri(req) });
      if (result.kind === 'failed') deps.logger.warn({ reason: result.reason }, 'Linked Roles sign-in failed');
      res.redirect(303, `/linked-roles/done?result=${result.kind === 'failed' ? 'failed' : result.verified ? 'verified' : 'not_verified'}`);
      return;
    }

    if (visitor.appealSignIn && appealSignIn.isAppealState(state, visitor.appealSignIn.stateHash)) {
      const pendingAppeal = visitor.appealSignIn;
      writeVisitor(req, ({ appealSignIn: _done, ...rest }) => rest);
      const result = typeof query.error === 'string'
        ? ({ kind: 'failed', reason: 'oauth_denied' } as const)
        : await appealSignIn.finish({ state, sessionStateHash: pendingAppeal.stateHash, code, codeVerifier: pendingAppeal.verifier, redirectUri: redirectUri(req) });
      if (result.kind === 'failed') {
        deps.logger.warn({ reason: result.reason }, 'appeal sign-in failed');
        res.redirect(303, '/appeal?signIn=failed');
        return;
      }
      writeVisitor(req, (v) => ({ ...v, appellant: { discordId: result.discordId, at: deps.clock.now().getTime() } }));
      res.redirect(303, '/appeal');
      return;
    }

    // the same callback again (a reload of "Finishing sign-in…", a double click, the browser resending it):
    // the same job and the same result for this visitor, never a second code exchange (Discord's codes are single use)
    const callbackHash = state && code ? hashCallback(state, code) : '';
    if (callbackHash && visitor.callback?.callbackHash === callbackHash) {
      res.redirect(303, visitor.callback.landedOn);
      return;
    }
    if (callbackHash && visitor.signIn?.callbackHash === callbackHash) return settle(req, res, { id: visitor.signIn.id, callbackHash }, INLINE_WAIT_MS);
    // the same callback while the first is still at work, from this same session (its OAuth round trip not yet dropped)
    const running = callbackHash && visitor.oauth?.stateHash === hashToken(state) ? pending.findByCallback(callbackHash) : null;
    if (running) {
      awaitSignIn(req, { id: running, callbackHash });
      return settle(req, res, { id: running, callbackHash }, INLINE_WAIT_MS);
    }

    if (typeof query.error === 'string') return fail(req, res, 'oauth_denied', { error: query.error.slice(0, 64) });
    if (!visitor.oauth || !visitor.consent) return fail(req, res, 'no_flow_in_session');
    if (!code || code.length > 512) return fail(req, res, 'missing_code');
    // a state that is not this session's, forged or expired is refused here; a live one is used up
    // while Discord exchanges the code, and the sign-in goes on only if this was its first use
    const stateCheck = deps.verification.startSignInStateUse(state, visitor.oauth.stateHash);
    if ('refused' in stateCheck) return fail(req, res, stateCheck.refused);

    const consent = visitor.consent;
    const input = { code, codeVerifier: visitor.oauth.verifier, redirectUri: redirectUri(req), clientIp: resolveClientIp(req), consent, stateUse: stateCheck.use };
    const id = pending.start(callbackHash, () => finishSignIn(input));
    if (!id) return conclude(req, res, { kind: 'failed', reason: 'too_many_pending_sign_ins', retryable: true }, callbackHash);
    awaitSignIn(req, { id, callbackHash });
    await settle(req, res, { id, callbackHash }, INLINE_WAIT_MS);
  });

  router.get('/oauth/finish', async (req, res) => {
    const visitor = readVisitor(req);
    if (visitor.signIn) return settle(req, res, { id: visitor.signIn.id, callbackHash: visitor.signIn.callbackHash ?? '' }, POLL_WAIT_MS);
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
      return htmlPage('Linked Roles are off', '<h1>Linked Roles are off</h1><p>This server does not offer "Verified with Gatekeeper" as a Linked Role.</p>');
    case 'unavailable':
      return htmlPage('Linked Roles unavailable', '<h1>Linked Roles are unavailable right now</h1><p>Discord did not accept Gatekeeper\'s Linked Roles set-up; the server\'s staff can see why on their dashboard. Verification itself works as usual. Try again later.</p>');
    case 'verified':
      return htmlPage('Connected', '<h1>Connected: Verified with Gatekeeper</h1><p>Your Discord profile now shows your Gatekeeper verification. Go back to Discord: roles that require it are yours to pick.</p>');
    case 'not_verified':
      return htmlPage('Connected, not verified', `<h1>Connected, not verified yet</h1><p>Gatekeeper has no completed verification for this account, so roles that require it stay closed. Verify first <a href="/">on this site</a> and in the server, then connect again from Discord's role menu.</p>`);
    case 'failed':
      return htmlPage('Could not connect', '<h1>Could not connect</h1><p>The sign-in with Discord did not finish. Nothing was changed. Try again from Discord\'s role menu.</p>');
  }
}
