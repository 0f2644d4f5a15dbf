import express, { type Request, type RequestHandler, type Router } from 'express';
import type { z } from 'zod';
import type { StaffSessionGuard } from '../middleware/staff-session';

/**
 * Every staff-facing route is declared as data with the access it needs, and the
 * guards are added here from that declaration: a route cannot be mounted without
 * one, and the authorization-matrix test walks the same table.
 */

export type RouteAccess = 'public' | 'staff' | 'super_admin';
export type RouteMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface StaffRoute {
  method: RouteMethod;
  /** path under /api, in Express syntax */
  path: string;
  access: RouteAccess;
  /** validation middleware, then the handler */
  handlers: RequestHandler[];
}

const GUARDS: Record<RouteAccess, (guard: StaffSessionGuard) => RequestHandler[]> = {
  public: () => [],
  staff: (guard) => [guard.requireStaff],
  super_admin: (guard) => [guard.requireStaff, guard.requireSuperAdmin],
};

export function mountStaffRoutes(routes: StaffRoute[], guard: StaffSessionGuard): Router {
  const router = express.Router();
  for (const route of routes) router[route.method](route.path, ...GUARDS[route.access](guard), ...route.handlers);
  return router;
}

/** The validated part of a request, typed by the schema `validate(schema, part)` checked it against. */
export function validated<S extends z.ZodType>(req: Request, _schema: S, part: 'body' | 'params' | 'query' = 'body'): z.infer<S> {
  return req[part] as z.infer<S>;
}
