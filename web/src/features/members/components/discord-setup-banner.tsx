import useSWR from 'swr';
import { fetcher } from '@/lib/api';

/** GET /api/admin/discord-setup: what the bot lacks on the Discord server, each with its fix, and whether Discord accepts its token. */
export interface DiscordSetupReport {
  checkedAt: string;
  problems: { problem: string; fix: string }[];
  error: string | null;
  /** null when the process runs no bot */
  token?: { status: 'ok' | 'rejected'; since: string | null; nextProbeAt: string | null; fix: string | null } | null;
  /** invalid answers (401, 403, 429) Discord counted in its 10-minute window, against its limit, and whether the product is holding its calls back for it */
  invalidRequests?: { total: number; limit: number; budget: 'open' | 'slowed' | 'paused' } | null;
  /** Discord actions (roles, joins, log lines) waiting until the owner fixes what Discord refused them for, by reason */
  waiting?: { count: number; reasons: { message: string; count: number }[] } | null;
}

export const DISCORD_SETUP_PATH = '/api/admin/discord-setup';

/** The bot's token rejected by Discord: all Discord work waits, nothing is lost, and what to do. */
function TokenRejected({ token }: { token: NonNullable<DiscordSetupReport['token']> }) {
  return (
    <section
      role="alert"
      aria-labelledby="discord-token-title"
      className="mb-6 rounded-lg border border-red-500/60 bg-red-500/10 p-4 text-sm break-words"
    >
      <h2 id="discord-token-title" className="mb-2 font-semibold">
        Discord rejected the bot token: all Discord work is paused
      </h2>
      <p>
        Nothing is lost: roles, joins and log messages wait in the queue and go out as soon as Discord accepts the token again
        {token.since ? ` (rejected since ${new Date(token.since).toLocaleString()})` : ''}.
      </p>
      {token.fix ? <p className="text-muted mt-1">{token.fix}</p> : null}
    </section>
  );
}

/** Warnings for staff: the bot token rejected, a missing permission, Discord's invalid-request limit nearing; nothing when all is well or the check cannot be read. */
export function DiscordSetupBanner() {
  const { data } = useSWR<DiscordSetupReport>(DISCORD_SETUP_PATH, fetcher);
  if (!data) return null;
  const invalid = data.invalidRequests;
  // the server's budget gate decides when calls are held back; staff are told from then on
  const nearingLimit = invalid && invalid.budget !== 'open' ? invalid : null;
  return (
    <>
      {data.token?.status === 'rejected' ? <TokenRejected token={data.token} /> : null}
      {nearingLimit ? (
        <section
          role="alert"
          aria-labelledby="discord-invalid-title"
          className="mb-6 rounded-lg border border-amber-500/60 bg-amber-500/10 p-4 text-sm break-words"
        >
          <h2 id="discord-invalid-title" className="mb-2 font-semibold">
            Discord refused {nearingLimit.total.toLocaleString()} requests in the last 10 minutes
          </h2>
          <p>
            Discord blocks an address for a while past {nearingLimit.limit.toLocaleString()}. Gatekeeper is slowing its calls down to stay
            well below that; the problems listed here (a permission, a role) are the usual cause.
          </p>
        </section>
      ) : null}
      {data.problems.length > 0 ? <SetupProblems problems={data.problems} /> : null}
      {data.waiting && data.waiting.count > 0 ? <WaitingActions waiting={data.waiting} /> : null}
    </>
  );
}

function SetupProblems({ problems }: { problems: DiscordSetupReport['problems'] }) {
  return (
    <section
      role="alert"
      aria-labelledby="discord-setup-title"
      className="mb-6 rounded-lg border border-amber-500/60 bg-amber-500/10 p-4 text-sm break-words"
    >
      <h2 id="discord-setup-title" className="mb-2 font-semibold">
        The bot cannot do everything it needs on your Discord server
      </h2>
      <ul className="flex list-disc flex-col gap-2 pl-5">
        {problems.map((item) => (
          <li key={item.problem}>
            <span className="font-medium">{item.problem}</span> <span className="text-muted">{item.fix}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Discord actions parked until the owner's fix: nothing is lost, each reason with how many wait for it. */
function WaitingActions({ waiting }: { waiting: NonNullable<DiscordSetupReport['waiting']> }) {
  const actions = waiting.count === 1 ? '1 Discord action is' : `${waiting.count.toLocaleString()} Discord actions are`;
  return (
    <section
      role="alert"
      aria-labelledby="discord-waiting-title"
      className="mb-6 rounded-lg border border-amber-500/60 bg-amber-500/10 p-4 text-sm break-words"
    >
      <h2 id="discord-waiting-title" className="mb-2 font-semibold">
        {actions} waiting for a fix on your Discord server
      </h2>
      <p className="mb-2">
        {waiting.count === 1 ? 'Discord refused it' : 'Discord refused them'} for the {waiting.reasons.length === 1 ? 'reason' : 'reasons'}{' '}
        below. Nothing is lost: {waiting.count === 1 ? 'it goes' : 'they go'} out by {waiting.count === 1 ? 'itself' : 'themselves'} within
        a minute of the fix.
      </p>
      <ul className="flex list-disc flex-col gap-2 pl-5">
        {waiting.reasons.map((reason) => (
          <li key={reason.message}>
            <span className="font-medium">{reason.count.toLocaleString()} ×</span> {reason.message}
          </li>
        ))}
      </ul>
    </section>
  );
}
