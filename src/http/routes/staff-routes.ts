import type { Router } from 'express';
import type { OutboxPort } from '../../modules/outbox/outbox.types';
import { createMembersService } from '../../modules/members/members.service';
import { createSharedNetworkService } from '../../modules/members/shared-network.service';
import { DEFAULT_LOGIN_THROTTLE, type LoginThrottlePolicy } from '../../modules/staff/login-throttle';
import { createPasswordHasher, DEFAULT_BCRYPT_COST } from '../../modules/staff/password';
import type { SetupCodeStore } from '../../modules/staff/setup-code';
import { createStaffAccountsService } from '../../modules/staff/staff-accounts.service';
import { createStaffLoginService } from '../../modules/staff/staff-login.service';
import type { ServerContext } from '../compose';
import { createStaffSessionGuard } from '../middleware/staff-session';
import { adminAuditRoutes } from './admin-audit.router';
import { adminMembersRoutes } from './admin-members.router';
import { adminSharedNetworksRoutes } from './admin-shared-networks.router';
import { adminOutboxRoutes } from './admin-outbox.router';
import { createOutboxRepository } from '../../modules/outbox/outbox.repository';
import { adminStaffRoutes } from './admin-staff.router';
import { discordSetupRoutes, type DiscordSetupReader } from './discord-setup.router';
import { discordUserRoutes, type DiscordUserLookup } from './discord-user.router';
import { setupRoutes } from './setup.router';
import { staffAuthRoutes } from './staff-auth.router';
import { mountStaffRoutes, type StaffRoute } from './staff-route';

export type { DiscordUserLookup } from './discord-user.router';
export type { OutboxPort } from '../../modules/outbox/outbox.types';
export type { SetupCodeStore } from '../../modules/staff/setup-code';

export interface StaffRouterDeps {
  ctx: ServerContext;
  discordUsers: DiscordUserLookup;
  outbox: OutboxPort;
  setupCode: SetupCodeStore;
  /** bcrypt cost; DEFAULT_BCRYPT_COST (12) unless a test asks for less */
  bcryptCost?: number;
  loginThrottle?: LoginThrottlePolicy;
  /** the bot's permission self-check (absent: the route is not mounted) */
  discordSetup?: DiscordSetupReader;
}

/** Every staff-facing route (setup, sign-in, dashboard, staff management, audit) as a table. */
export function createStaffRoutes(deps: StaffRouterDeps): StaffRoute[] {
  const { ctx } = deps;
  const hasher = createPasswordHasher(deps.bcryptCost ?? DEFAULT_BCRYPT_COST);
  const guard = createStaffSessionGuard({ database: ctx.database, clock: ctx.clock });
  const accounts = createStaffAccountsService({ database: ctx.database, clock: ctx.clock, hasher, setupCode: deps.setupCode });
  const login = createStaffLoginService({
    database: ctx.database,
    clock: ctx.clock,
    hasher,
    throttle: deps.loginThrottle ?? DEFAULT_LOGIN_THROTTLE,
    hmacKey: ctx.secrets.ipHashKey,
  });
  const members = createMembersService({ database: ctx.database, clock: ctx.clock, outbox: deps.outbox });
  return [
    ...setupRoutes({ accounts }),
    ...staffAuthRoutes({ login, guard, clock: ctx.clock }),
    ...adminMembersRoutes({ members }),
    ...adminSharedNetworksRoutes({ sharedNetworks: createSharedNetworkService({ database: ctx.database, clock: ctx.clock, outbox: deps.outbox }) }),
    ...adminStaffRoutes({ accounts }),
    ...adminAuditRoutes({ database: ctx.database }),
    ...adminOutboxRoutes({ database: ctx.database, clock: ctx.clock, outbox: createOutboxRepository({ sealKey: ctx.secrets.outboxKey, now: () => ctx.clock.now() }) }),
    ...discordUserRoutes({ discordUsers: deps.discordUsers }),
    ...(deps.discordSetup ? discordSetupRoutes({ discordSetup: deps.discordSetup }) : []),
  ];
}

/** The routers the lead mounts under /api: `buildApp(ctx, { api: [...createStaffRouters(deps)], root })`. */
export function createStaffRouters(deps: StaffRouterDeps): Router[] {
  const guard = createStaffSessionGuard({ database: deps.ctx.database, clock: deps.ctx.clock });
  return [mountStaffRoutes(createStaffRoutes(deps), guard)];
}
