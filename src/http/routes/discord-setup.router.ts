import type { SetupReport } from '../../discord/bot-setup-monitor';
import type { StaffRoute } from './staff-route-table';

/** Port: the bot's permission self-check, as last run (re-run when stale). */
export interface DiscordSetupReader {
  current(): Promise<SetupReport>;
}

/** GET /api/admin/discord-setup: what the bot is missing on the server, for the dashboard banner. */
export function discordSetupRoutes(deps: { discordSetup: DiscordSetupReader }): StaffRoute[] {
  return [
    {
      method: 'get',
      path: '/admin/discord-setup',
      access: 'staff',
      handlers: [
        async (_req, res) => {
          const report = await deps.discordSetup.current();
          res.json({ checkedAt: report.checkedAt, problems: report.problems, error: report.error ?? null });
        },
      ],
    },
  ];
}
