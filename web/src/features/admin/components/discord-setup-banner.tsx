import useSWR from 'swr';
import { fetcher } from '@/lib/api';

/** GET /api/admin/discord-setup: what the bot lacks on the Discord server, each with its fix. */
export interface DiscordSetupReport {
  checkedAt: string;
  problems: { problem: string; fix: string }[];
  error: string | null;
}

export const DISCORD_SETUP_PATH = '/api/admin/discord-setup';

/** A warning for staff when the bot is missing a permission; nothing when all is well or the check cannot be read. */
export function DiscordSetupBanner() {
  const { data } = useSWR<DiscordSetupReport>(DISCORD_SETUP_PATH, fetcher);
  if (!data || data.problems.length === 0) return null;
  return (
    <section role="alert" aria-labelledby="discord-setup-title" className="mb-6 rounded-lg border border-amber-500/60 bg-amber-500/10 p-4 text-sm">
      <h2 id="discord-setup-title" className="mb-2 font-semibold">
        The bot cannot do everything it needs on your Discord server
      </h2>
      <ul className="flex list-disc flex-col gap-2 pl-5">
        {data.problems.map((item) => (
          <li key={item.problem}>
            <span className="font-medium">{item.problem}</span> <span className="text-muted">{item.fix}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
