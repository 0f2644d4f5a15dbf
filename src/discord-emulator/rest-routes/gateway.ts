import type { RESTGetAPIGatewayBotResult, RESTGetAPIGatewayResult } from 'discord-api-types/v10';
import type { EmulatorContext } from '../context';
import { ok, type RouteDefinition } from '../rest-router';

export function gatewayRoutes(context: EmulatorContext, gatewayUrl: () => string): RouteDefinition[] {
  return [
    {
      method: 'GET',
      path: '/gateway',
      auth: 'none',
      bucket: 'gateway',
      handle: () => ok({ url: gatewayUrl() } satisfies RESTGetAPIGatewayResult),
    },
    {
      method: 'GET',
      path: '/gateway/bot',
      auth: 'bot',
      bucket: 'gateway',
      handle: () =>
        ok({
          url: gatewayUrl(),
          shards: 1,
          session_start_limit: { total: 1000, remaining: 1000, reset_after: 86_400_000, max_concurrency: 1 },
        } satisfies RESTGetAPIGatewayBotResult),
    },
  ];
}
