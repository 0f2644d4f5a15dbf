import type { SetupReport } from '../../discord/bot-setup-monitor';
import type { BotTokenStatus } from '../../discord/bot-token-health';
import type { InvalidRequestsSnapshot } from '../../discord/invalid-requests';
import type { BudgetState } from '../../discord/request-budget-gate';
import type { StaffRoute } from './staff-route-table';

/** Whether Discord accepts the bot token, and how many invalid answers it drew in the window Discord counts. */
export interface DiscordStanding {
  token: BotTokenStatus;
  /** the count, and what the budget gate does at it ('slowed', 'paused': calls are being held back) */
  invalidRequests: InvalidRequestsSnapshot & { budget: BudgetState };
}

/** Port: the bot's permission self-check, as last run (re-run when stale), and the bot's standing with Discord. */
export interface DiscordSetupReader {
  current(): Promise<SetupReport>;
  standing?(): DiscordStanding;
}

/** GET /api/admin/discord-setup: what the bot is missing on the server and whether Discord accepts its token, for the dashboard banner. */
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
          res.json({ checkedAt: report.checkedAt, problems: report.problems, error: report.error ?? null, token: standing?.token ?? null, invalidRequests: standing?.invalidRequests ?? null });
        },
      ],
    },
  ];
}
