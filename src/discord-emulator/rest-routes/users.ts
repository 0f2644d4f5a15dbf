import {
  type APIUser,
  type RESTGetAPICurrentUserGuildsResult,
  type RESTGetAPIOAuth2CurrentAuthorizationResult,
} from 'discord-api-types/v10';
import { toApiApplication } from '../application-object';
import type { EmulatorContext } from '../context';
import { requireApplication } from '../guild-guards';
import { unauthorized } from '../rest-error';
import { ok, type RouteContext, type RouteDefinition } from '../rest-router';

function requireScope(request: RouteContext, scope: string): void {
  if (request.auth.kind === 'bearer' && !request.auth.grant.scopes.includes(scope)) throw unauthorized();
}

export function userRoutes(context: EmulatorContext): RouteDefinition[] {
  const { state } = context;

  const currentUser = (request: RouteContext): APIUser => {
    if (request.auth.kind !== 'bearer') return state.botUser;
    requireScope(request, 'identify');
    const user = state.requireUser(request.auth.grant.userId);
    if (!request.auth.grant.scopes.includes('email')) return user;
    return { ...user, email: `${user.username}@sandbox.invalid`, verified: true };
  };

  return [
    { method: 'GET', path: '/users/@me', auth: 'bot-or-bearer', bucket: 'users', handle: (request) => ok(currentUser(request)) },
    {
      method: 'GET',
      path: '/users/@me/guilds',
      auth: 'bot-or-bearer',
      bucket: 'users',
      handle: (request) => {
        requireScope(request, 'guilds');
        const userId = request.auth.kind === 'bearer' ? request.auth.grant.userId : context.application.botUserId;
        const guild = state.guild;
        const result: RESTGetAPICurrentUserGuildsResult = guild.members.has(userId)
          ? [
              {
                id: guild.id,
                name: guild.name,
                icon: null,
                banner: null,
                owner: guild.ownerId === userId,
                permissions: String(state.memberPermissions(userId)),
                features: [],
              },
            ]
          : [];
        return ok(result);
      },
    },
    {
      method: 'GET',
      path: '/users/:userId',
      auth: 'bot',
      bucket: 'users',
      handle: ({ params }) => ok(state.requireUser(params.userId ?? '')),
    },
    {
      method: 'GET',
      path: '/oauth2/@me',
      auth: 'bearer',
      bucket: 'users',
      handle: (request) => {
        if (request.auth.kind !== 'bearer') throw unauthorized();
        const { grant } = request.auth;
        const result: RESTGetAPIOAuth2CurrentAuthorizationResult = {
          application: toApiApplication(context),
          // Scopes were validated against KNOWN_SCOPES when the code was issued.
          scopes: grant.scopes as RESTGetAPIOAuth2CurrentAuthorizationResult['scopes'],
          expires: new Date(grant.expiresAt).toISOString(),
          ...(grant.scopes.includes('identify') ? { user: state.requireUser(grant.userId) } : {}),
        };
        return ok(result);
      },
    },
    { method: 'GET', path: '/applications/@me', auth: 'bot', bucket: 'users', handle: () => ok(toApiApplication(context)) },
    {
      method: 'GET',
      path: '/oauth2/applications/@me',
      auth: 'bot',
      bucket: 'users',
      handle: () => ok(toApiApplication(context)),
    },
    {
      method: 'GET',
      path: '/applications/:applicationId',
      auth: 'bot',
      bucket: 'users',
      handle: ({ params }) => {
        requireApplication(context, params.applicationId);
        return ok(toApiApplication(context));
      },
    },
  ];
}
