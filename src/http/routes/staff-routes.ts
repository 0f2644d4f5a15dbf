import type { Router } from 'express';
import type { Clock } from '../../clock';
import type { AuditLogService } from '../../modules/audit';
import type { MembersService, SharedNetworkService } from '../../modules/members';
import type { OutboxAdminService } from '../../modules/outbox';
import type { StaffAccountsService, StaffLoginService } from '../../modules/staff';
import type { StaffSessionGuard } from '../middleware/staff-session';
import { adminAuditRoutes } from './admin-audit.router';
import { adminMembersRoutes } from './admin-members.router';
import { adminOutboxRoutes } from './admin-outbox.router';
import { adminSharedNetworksRoutes } from './admin-shared-networks.router';
import { adminStaffRoutes } from './admin-staff.router';
import { adminSettingsRoutes } from './admin-settings.router';
import { adminLockdownRoutes } from './admin-lockdown.router';
import { adminAppealsRoutes } from './admin-appeals.router';
import type { AppealsService } from '../../modules/appeals';
import { adminStatisticsRoutes } from './admin-statistics.router';
import type { AdmissionService } from '../../modules/admission';
import type { GuildNamesCheck, SettingsService } from '../../modules/settings';
import type { StatisticsService } from '../../modules/statistics';
import { discordSetupRoutes, type DiscordSetupReader } from './discord-setup.router';
import { discordUserRoutes, type DiscordUserLookup } from './discord-user.router';
import { setupRoutes } from './setup.router';
import { staffAuthRoutes } from './staff-auth.router';
import { mountStaffRoutes, type StaffRoute } from './staff-route-table';

export type { DiscordUserLookup };

/** What the staff-facing routes use; built once, in services.ts. */
export interface StaffServices {
  clock: Clock;
  guard: StaffSessionGuard;
  accounts: StaffAccountsService;
  login: StaffLoginService;
  members: MembersService;
  sharedNetworks: SharedNetworkService;
  auditLog: AuditLogService;
  outboxAdmin: OutboxAdminService;
  discordUsers: DiscordUserLookup;
  settings: SettingsService;
  /** checks role and channel names when settings change (skipped without) */
  guildNames?: GuildNamesCheck;
  statistics: StatisticsService;
  admission: AdmissionService;
  appeals: AppealsService;
  /** the bot's permission self-check (absent: the route is not mounted) */
  discordSetup?: DiscordSetupReader;
  /** Secure cookies (served over https): the staff device cookie */
  secureCookies: boolean;
}

/** Every staff-facing route (setup, sign-in, dashboard, staff management, audit) as a table. */
export function createStaffRoutes(services: StaffServices): StaffRoute[] {
  return [
    ...setupRoutes({ accounts: services.accounts }),
    ...staffAuthRoutes({
      login: services.login,
      accounts: services.accounts,
      guard: services.guard,
      clock: services.clock,
      secureCookies: services.secureCookies,
    }),
    ...adminMembersRoutes({ members: services.members }),
    ...adminSharedNetworksRoutes({ sharedNetworks: services.sharedNetworks }),
    ...adminStaffRoutes({ accounts: services.accounts }),
    ...adminAuditRoutes({ auditLog: services.auditLog }),
    ...adminOutboxRoutes({ outboxAdmin: services.outboxAdmin }),
    ...discordUserRoutes({ discordUsers: services.discordUsers }),
    ...adminSettingsRoutes({ settings: services.settings, guildNames: services.guildNames }),
    ...adminStatisticsRoutes({ statistics: services.statistics }),
    ...adminLockdownRoutes({ admission: services.admission }),
    ...adminAppealsRoutes({ appeals: services.appeals }),
    ...(services.discordSetup ? discordSetupRoutes({ discordSetup: services.discordSetup }) : []),
  ];
}

/** The staff routes as routers mounted under /api, each behind the guard its access names. */
export function createStaffRouters(services: StaffServices): Router[] {
  return [mountStaffRoutes(createStaffRoutes(services), services.guard)];
}
