import type { IncomingHttpHeaders } from 'node:http';
import type { AccessTokenRecord } from './oauth';
import type { BucketName } from './rate-limiter';
import type { UploadedFile } from './message-factory';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who may call a route: the bot token, a user's OAuth2 Bearer token, either, or anyone (webhook/interaction tokens, OAuth2). */
export type AuthRequirement = 'bot' | 'bearer' | 'bot-or-bearer' | 'none';

export type RequestAuth = { kind: 'bot' } | { kind: 'bearer'; grant: AccessTokenRecord } | { kind: 'none' } | { kind: 'invalid' };

export interface RouteContext {
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON, or `payload_json` of a multipart body; undefined when there is none. */
  body: unknown;
  /** Set for application/x-www-form-urlencoded bodies. */
  form: URLSearchParams | undefined;
  files: UploadedFile[];
  headers: IncomingHttpHeaders;
  auth: RequestAuth;
}

export interface RouteResult {
  status: number;
  body?: unknown;
}

export interface RouteDefinition {
  method: HttpMethod;
  /** Template with `:params`, e.g. `/guilds/:guildId/members/:userId`; literal segments such as `@me` win over params. */
  path: string;
  auth: AuthRequirement;
  /** Rate-limit bucket; the major parameter (guild, channel, webhook) is taken from the params. */
  bucket: BucketName;
  handle(context: RouteContext): RouteResult | Promise<RouteResult>;
}

export const ok = (body: unknown): RouteResult => ({ status: 200, body });
export const created = (body: unknown): RouteResult => ({ status: 201, body });
export const noContent = (): RouteResult => ({ status: 204 });

export type RouteMatch = { route: RouteDefinition; params: Record<string, string> } | { allowed: HttpMethod[] } | null;

/** Matches decoded path segments against route templates; null = no such path, `allowed` = path exists with other methods. */
export function matchRoute(routes: RouteDefinition[], method: string, segments: string[]): RouteMatch {
  const allowed: HttpMethod[] = [];
  let best: { route: RouteDefinition; params: Record<string, string>; literals: number } | null = null;
  for (const route of routes) {
    const template = route.path.split('/').filter(Boolean);
    if (template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let literals = 0;
    const matches = template.every((part, index) => {
      const segment = segments[index] ?? '';
      if (part.startsWith(':')) {
        params[part.slice(1)] = segment;
        return segment.length > 0;
      }
      literals++;
      return part === segment;
    });
    if (!matches) continue;
    if (route.method !== method) {
      allowed.push(route.method);
      continue;
    }
    if (!best || literals > best.literals) best = { route, params, literals };
  }
  if (best) return { route: best.route, params: best.params };
  return allowed.length > 0 ? { allowed } : null;
}

/** The major parameter Discord splits buckets by: webhook id+token, channel or guild. */
export function majorParameter(params: Record<string, string>): string {
  if (params.webhookToken) return `${params.applicationId ?? ''}/${params.webhookToken}`;
  return params.channelId ?? params.guildId ?? params.interactionId ?? 'global';
}
