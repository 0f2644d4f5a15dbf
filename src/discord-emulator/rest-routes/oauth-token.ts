import type { EmulatorContext } from '../context';
import { exchangeToken, revokeToken } from '../oauth';
import { oauthError } from '../rest-error';
import { ok, type RouteContext, type RouteDefinition } from '../rest-router';

/** The form body; JSON is not what Discord accepts here, so it is refused the same way. */
function form(request: RouteContext): URLSearchParams {
  if (!request.form) throw oauthError(400, 'invalid_request', 'Expected application/x-www-form-urlencoded body.');
  return request.form;
}

export function oauthTokenRoutes(context: EmulatorContext): RouteDefinition[] {
  return [
    {
      method: 'POST',
      path: '/oauth2/token',
      auth: 'none',
      bucket: 'oauth',
      handle: (request) =>
        ok(exchangeToken(context.state.oauth, context.oauthApp, form(request), request.headers.authorization, context.now())),
    },
    {
      method: 'POST',
      path: '/oauth2/token/revoke',
      auth: 'none',
      bucket: 'oauth',
      handle: (request) => {
        revokeToken(context.state.oauth, context.oauthApp, form(request), request.headers.authorization);
        return ok({});
      },
    },
  ];
}
