import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorContext } from './context';
import type { FaultInjector } from './faults';
import type { InvalidRequestLimit } from './invalid-request-limit';
import { findAccessToken } from './oauth';
import { checkRequestBody, checkRequestHead } from './openapi-check/request-check';
import { maskedPath, type OpenApiViolation } from './openapi-check/violations';
import type { RateLimiter } from './rate-limiter';
import { parseRequestBody } from './request-body';
import { methodNotAllowed, missingPermissions, notFound, RestError, unauthorized, unknownMember, unknownRole } from './rest-error';
import { majorParameter, matchRoute, type RequestAuth, type RouteDefinition, type RouteResult } from './rest-router';

/** Oldest request-log entries are dropped past this, so a long-running sandbox does not grow without bound. */
const REQUEST_LOG_LIMIT = 100_000;

export interface RestServerDeps {
  context: EmulatorContext;
  routes: RouteDefinition[];
  limiter: RateLimiter | null;
  faults: FaultInjector;
  /** Discord's invalid request limit per client address; null = not modelled */
  invalidRequests?: InvalidRequestLimit | null;
  /** Responses held open by the `hang` fault; closed when the emulator closes. */
  hanging: Set<ServerResponse>;
  /** Each request that departs from Discord's OpenAPI description (`openapi-check/`); null turns the check off. */
  onViolation: ((violation: OpenApiViolation) => void) | null;
}

function authenticate(context: EmulatorContext, header: string | undefined): RequestAuth {
  if (!header) return { kind: 'none' };
  const [scheme, token = ''] = header.split(/\s+/, 2);
  if (scheme === 'Bot')
    return token === context.application.botToken && !context.application.botTokenRevoked ? { kind: 'bot' } : { kind: 'invalid' };
  if (scheme === 'Bearer') {
    const grant = findAccessToken(context.state.oauth, token, context.now());
    return grant ? { kind: 'bearer', grant } : { kind: 'invalid' };
  }
  return { kind: 'none' }; // e.g. HTTP Basic client credentials on /oauth2/token
}

function tokenLabel(auth: RequestAuth): string {
  if (auth.kind === 'bearer') return `bearer:${auth.grant.userId}`;
  return auth.kind;
}

function isAllowed(route: RouteDefinition, auth: RequestAuth): boolean {
  if (auth.kind === 'invalid') return false;
  switch (route.auth) {
    case 'none':
      return true;
    case 'bot':
      return auth.kind === 'bot';
    case 'bearer':
      return auth.kind === 'bearer';
    case 'bot-or-bearer':
      return auth.kind === 'bot' || auth.kind === 'bearer';
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (status === 204 || body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/** Splits `/a/%40me/b` into decoded segments (`['a', '@me', 'b']`), as Discord's router does. */
export function decodeSegments(path: string): string[] | null {
  try {
    return path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
}

/**
 * The REST pipeline for one request under `/api[/vN]`: OpenAPI check → route → fault → auth → rate limit →
 * body (and its OpenAPI check) → handler, logging each request with its status so tests can measure rates
 * and count 429s. A request Discord's description does not allow is reported to `onViolation`; where
 * Discord would refuse it (a body, query or path value of the wrong shape) it gets Discord's 400.
 */
export function createRestHandler(deps: RestServerDeps) {
  const { context, routes, limiter, faults, hanging, onViolation } = deps;
  const invalidRequests = deps.invalidRequests ?? null;
  const { state } = context;

  return async function handleRest(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const receivedAt = Date.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const auth = authenticate(context, req.headers.authorization);
    // the route bucket's limit as this answer's X-RateLimit-* headers state it (answers that passed the limiter)
    let advertised: { limit: number; resetAfterMs: number } | undefined;
    const client = req.socket.remoteAddress ?? 'unknown';
    // the X-RateLimit-Scope of a 429 this request is answered with (Discord does not count `shared` ones)
    let scope: string | undefined;
    const log = (status: number, route: string, bucket: string | null, global?: boolean) => {
      invalidRequests?.record(client, status, scope, receivedAt);
      state.requestLog.push({
        at: receivedAt,
        method,
        path,
        route,
        bucket,
        token: tokenLabel(auth),
        userAgent: req.headers['user-agent'] ?? null,
        status,
        ...(global === undefined ? {} : { global }),
        ...(advertised ? { advertised } : {}),
      });
      if (state.requestLog.length > REQUEST_LOG_LIMIT) state.requestLog.splice(0, REQUEST_LOG_LIMIT / 10);
    };

    const blockedMs = invalidRequests?.blockedFor(client, receivedAt) ?? 0;
    if (blockedMs > 0) {
      // Cloudflare's block, in front of the API: no JSON, no X-RateLimit-* headers, every route
      state.requestLog.push({
        at: receivedAt,
        method,
        path,
        route: '(blocked)',
        bucket: null,
        token: tokenLabel(auth),
        userAgent: req.headers['user-agent'] ?? null,
        status: 429,
      });
      res.writeHead(429, { 'Content-Type': 'text/plain', 'Retry-After': String(Math.ceil(blockedMs / 1000)) }).end('error code: 1015');
      return;
    }

    const segments = decodeSegments(path);
    const spec = onViolation && segments ? checkRequestHead({ method, segments, query, headers: req.headers }) : null;
    const reportProblems = (found: { problems: string[]; notes: string[] }) => {
      if (onViolation && (found.problems.length > 0 || found.notes.length > 0)) {
        onViolation({
          method,
          path: spec?.located?.template ?? maskedPath(segments ?? []),
          problems: found.problems,
          notes: found.notes,
          userAgent: req.headers['user-agent'] ?? '',
        });
      }
    };
    if (spec) reportProblems(spec);

    const match = segments ? matchRoute(routes, method, segments) : null;
    if (!match || !('route' in match)) {
      const error = match ? methodNotAllowed() : notFound();
      log(error.status, '(unmatched)', null);
      send(res, error.status, error.body);
      return;
    }
    const { route, params } = match;
    const bucketKey = `${route.bucket}:${majorParameter(params)}`;

    const retryAfterSeconds = faults.retryAfterSeconds;
    const fault = faults.take(path);
    if (fault === 'hang') {
      log(0, route.path, bucketKey);
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (fault === 'error500') {
      log(500, route.path, bucketKey);
      send(res, 500, { message: '500: Internal Server Error', code: 0 });
      return;
    }
    const answer =
      fault === 'missingPermissions'
        ? missingPermissions()
        : fault === 'unknownRole'
          ? unknownRole()
          : fault === 'unknownMember'
            ? unknownMember()
            : null;
    if (answer) {
      log(answer.status, route.path, bucketKey);
      send(res, answer.status, answer.body);
      return;
    }
    if (fault === 'rate429') {
      // shaped like Discord's own 429: the wait in the body (fractional) and in the headers
      state.rateLimitHits++;
      scope = 'shared';
      log(429, route.path, bucketKey);
      send(
        res,
        429,
        { message: 'You are being rate limited.', code: 0, retry_after: retryAfterSeconds, global: false },
        { 'Retry-After': String(Math.ceil(retryAfterSeconds)), 'X-RateLimit-Scope': 'shared' },
      );
      return;
    }

    if (auth.kind === 'invalid' || !isAllowed(route, auth)) {
      const error = unauthorized();
      log(401, route.path, bucketKey);
      send(res, 401, error.body);
      return;
    }

    let headers: Record<string, string> = {};
    if (limiter) {
      const decision = limiter.take({
        bucket: route.bucket,
        bucketKey,
        caller: tokenLabel(auth),
        global: auth.kind === 'bot',
        now: receivedAt,
      });
      if (decision.limited) {
        state.rateLimitHits++;
        scope = decision.headers['X-RateLimit-Scope'];
        log(429, route.path, bucketKey, decision.global);
        send(res, 429, decision.body, decision.headers);
        return;
      }
      headers = decision.headers;
      advertised = {
        limit: Number(headers['X-RateLimit-Limit']),
        resetAfterMs: Math.round(Number(headers['X-RateLimit-Reset-After']) * 1000),
      };
    }

    let result: RouteResult;
    try {
      const parsed = await parseRequestBody(req);
      if (spec?.located) {
        const body = checkRequestBody(spec.located, req.headers, parsed);
        reportProblems(body);
        const refusal = spec.refusal ?? body.refusal;
        if (refusal) throw refusal;
      }
      result = await route.handle({ params, query, body: parsed.body, form: parsed.form, files: parsed.files, headers: req.headers, auth });
    } catch (error) {
      if (!(error instanceof RestError)) {
        log(500, route.path, bucketKey);
        send(res, 500, { message: '500: Internal Server Error', code: 0 }, headers);
        throw error;
      }
      log(error.status, route.path, bucketKey);
      send(res, error.status, error.body, headers);
      return;
    }
    log(result.status, route.path, bucketKey);
    send(res, result.status, result.body, headers);
  };
}
