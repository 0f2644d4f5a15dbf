import type { SetupReport } from '../../discord/bot-setup-monitor';
import type { BotTokenStatus } from '../../discord/bot-token-health';
import type { InvalidRequestsSnapshot } from '../../discord/invalid-requests';
import type { BudgetState } from '../../discord/request-budget-gate';
import type { ParkedSummary } from '../../modules/outbox';
import type { StaffRoute } from './staff-route-table';

/** Whether Discord accepts the bot token, and how many invalid answers it drew in the window Discord counts. */
export interface DiscordStanding {
  token: BotTokenStatus;
  /** the count, and what the budget gate does at it ('slowed', 'paused': calls are being held back) */
  invalidRequests: InvalidRequestsSnapshot & { budget: BudgetState };
}

/** Port: the bot's permission self-check, as last run (re-run when stale), the bot's standing with Discord, and the Discord actions waiting for a fix. */
export interface DiscordSetupReader {
  current(): Promise<SetupReport>;
  standing?(): DiscordStanding;
  /** the outbox's actions parked until the owner fixes what Discord refused them for, by reason */
  waiting?(): Promise<ParkedSummary>;
}

/**
 * GET /api/admin/discord-setup: what the bot is missing on the server, whether Discord accepts its token, and
 * the Discord actions waiting for the owner's fix (each reason with its count), for the dashboard banner.
 */
export function discordSetupRoutes(deps: { discordSetup: DiscordSetupReader }): StaffRoute[] {
  return [
    {
      method: 'get',
      path: '/admin/discord-setup',
      access: 'staff',
      handlers: [
        async (_req, res) => {
          const report = await deps.discordSetup.current();
          const standing = deps.discordSetup.standing?.() ?? null;
          const waiting = (await deps.discordSetup.waiting?.()) ?? null;
          res.json({
            checkedAt: report.checkedAt,
            problems: report.problems,
            error: report.error ?? null,
            token: standing?.token ?? null,
            invalidRequests: standing?.invalidRequests ?? null,
            waiting,
          });
        },
      ],
    },
  ];
}
