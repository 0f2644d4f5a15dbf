import type {
  APIApplicationRoleConnectionMetadata,
  RESTPutAPIApplicationRoleConnectionMetadataJSONBody,
  RESTPutAPICurrentUserApplicationRoleConnectionJSONBody,
} from 'discord-api-types/v10';
import type { EmulatorContext } from '../context';
import { requireApplication } from '../guild-guards';
import { fieldError, unauthorized } from '../rest-error';
import { ok, type RouteContext, type RouteDefinition } from '../rest-router';

/** The user of a Bearer call that carries `role_connections.write` (Discord answers 401 otherwise). */
function connectingUser(request: RouteContext): string {
  if (request.auth.kind !== 'bearer' || !request.auth.grant.scopes.includes('role_connections.write')) throw unauthorized();
  return request.auth.grant.userId;
}

/**
 * Linked Roles: the application's role-connection metadata (bot token) and each user's role connection
 * (the user's OAuth2 token with `role_connections.write`). Bodies are checked against the OpenAPI
 * description before these run; what the description cannot say (a user's metadata keys must be
 * registered fields) is checked here, as Discord does.
 */
export function roleConnectionRoutes(context: EmulatorContext): RouteDefinition[] {
  const { state } = context;
  const connectionOf = (userId: string) =>
    state.roleConnections.get(userId) ?? { platform_name: null, platform_username: null, metadata: {} };
  return [
    {
      method: 'GET',
      path: '/applications/:applicationId/role-connections/metadata',
      auth: 'bot',
      bucket: 'commands',
      handle: ({ params }) => {
        requireApplication(context, params.applicationId);
        return ok(state.roleConnectionMetadata);
      },
    },
    {
      method: 'PUT',
      path: '/applications/:applicationId/role-connections/metadata',
      auth: 'bot',
      bucket: 'commands',
      handle: ({ params, body }) => {
        requireApplication(context, params.applicationId);
        const fields = ((body ?? []) as RESTPutAPIApplicationRoleConnectionMetadataJSONBody).map(
          (field): APIApplicationRoleConnectionMetadata => ({
            type: field.type,
            key: field.key,
            name: field.name,
            description: field.description,
          }),
        );
        fields.forEach((field, index) => {
          if (!/^[a-z0-9_]{1,50}$/.test(field.key))
            throw fieldError(
              `${index}.key`,
              'APPLICATION_ROLE_CONNECTIONS_METADATA_INVALID_KEY',
              'Key must contain only a-z, 0-9, or _ characters',
            );
        });
        state.roleConnectionMetadata = fields;
        state.notifyChange();
        return ok(fields);
      },
    },
    {
      method: 'GET',
      path: '/users/@me/applications/:applicationId/role-connection',
      auth: 'bearer',
      bucket: 'users',
      handle: (request) => {
        requireApplication(context, request.params.applicationId);
        return ok(connectionOf(connectingUser(request)));
      },
    },
    {
      method: 'PUT',
      path: '/users/@me/applications/:applicationId/role-connection',
      auth: 'bearer',
      bucket: 'users',
      handle: (request) => {
        requireApplication(context, request.params.applicationId);
        const userId = connectingUser(request);
        const input = (request.body ?? {}) as RESTPutAPICurrentUserApplicationRoleConnectionJSONBody;
        const metadata: Record<string, string> = {};
        for (const [key, value] of Object.entries(input.metadata ?? {})) {
          if (!state.roleConnectionMetadata.some((field) => field.key === key))
            throw fieldError(`metadata.${key}`, 'APPLICATION_ROLE_CONNECTIONS_METADATA_UNKNOWN_KEY', 'Unknown metadata key');
          metadata[key] = String(value);
        }
        const record = { platform_name: input.platform_name ?? null, platform_username: input.platform_username ?? null, metadata };
        state.roleConnections.set(userId, record);
        state.notifyChange();
        return ok(record);
      },
    },
  ];
}
