import express, { type Express, type Router } from 'express';
import cookieSession from 'cookie-session';
import type { Database } from '../db/client';
import { inRequestTurn } from '../db/request-turn';
import { inStaffLane } from '../db/staff-lane';
import type { Logger } from '../logger';
import { cookieKeys } from './cookie-keys';
import { rejectControlCharacters } from './middleware/control-characters';
import { canonicalLoopbackRedirect } from './middleware/canonical-loopback';
import { apiNotFound, errorHandler } from './middleware/errors';
import { requestLog } from './middleware/request-log';
import { requireSameOrigin } from './middleware/same-origin';
import { securityHeaders } from './middleware/security-headers';
import { configRouter, type PublicConfig } from './routes/config.router';
import { healthRouter } from './routes/health.router';
import { spaRouter } from './spa';
import { SESSION_MAX_AGE_MS } from '../shared/durations';

export interface AppDeps {
  logger: Logger;
  database: Database;
  /** cookie-session signing keys (first signs, all verify) */
  sessionKeys: string[];
  /** Secure cookies (served over https) */
  secureCookies: boolean;
  /** Express `trust proxy` (TRUST_PROXY, validated in env.ts): false, a hop count or trusted proxy addresses */
  trustProxy: false | number | string;
  publicConfig: () => PublicConfig | Promise<PublicConfig>;
  /** feature routers mounted under /api (visitor flow, staff, admin …) */
  apiRouters?: Router[];
  /** feature routers mounted at the root (/oauth/start, /oauth/callback, /metrics) */
  rootRouters?: Router[];
  /** other origins allowed to make state-changing calls (the Vite dev server) */
  allowedOrigins?: string[];
  /** folder of the built web app; omitted in API-only tests */
  webDist?: string;
  /** origins besides https: that images may come from (the sandbox's Discord emulator) */
  imageOrigins?: string[];
  /** sandbox without PUBLIC_URL: the printed local address; pages opened under another loopback name are sent there */
  canonicalLoopbackOrigin?: string;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy);
  app.set('etag', false);

  app.use(securityHeaders({ https: deps.secureCookies, imageOrigins: deps.imageOrigins }));
  app.use(healthRouter(deps.database));
  if (deps.canonicalLoopbackOrigin) app.use(canonicalLoopbackRedirect(deps.canonicalLoopbackOrigin));
  app.use(requestLog(deps.logger));
  app.use(
    cookieSession({
      name: 'gk_session',
      // Keygrip's signatures, checked without its per-request random bytes (cookie-keys.ts)
      keys: cookieKeys(deps.sessionKeys),
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.secureCookies,
      maxAge: SESSION_MAX_AGE_MS,
    }),
  );

  // path and query string here (every route, the OAuth callback included); bodies once parsed below
  app.use(rejectControlCharacters);
  // a request's statements after its first go ahead of new requests' (request-turn.ts)
  app.use((req, _res, next) => inRequestTurn(req, next));

  const api = express.Router();
  api.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  api.use(requireSameOrigin(() => deps.allowedOrigins ?? []));
  api.use(express.json({ limit: '64kb', strict: true, type: () => true }));
  api.use(rejectControlCharacters);
  // staff signing in and the dashboard reach the database on a lane of their own (staff-lane.ts); set once
  // the body is read, so everything the route awaits keeps it
  api.use((req, _res, next) => inRequestTurn(req, next));
  api.use(['/staff', '/admin'], (_req, _res, next) => inStaffLane(next));
  api.use(configRouter(deps.publicConfig));
  for (const router of deps.apiRouters ?? []) api.use(router);
  api.use(apiNotFound);
  app.use('/api', api);

  for (const router of deps.rootRouters ?? []) app.use(router);
  if (deps.webDist) app.use(spaRouter(deps.webDist));
  app.use(apiNotFound);
  app.use(errorHandler(deps.logger));
  return app;
}
