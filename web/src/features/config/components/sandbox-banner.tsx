import { useConfig } from '../api';

/** DESIGN §3: every page says clearly when no real Discord is behind it. */
export function SandboxBanner() {
  const { data } = useConfig();
  if (!data?.sandbox) return null;
  const sandboxViewUrl = data.sandboxDiscordUrl ? `${data.sandboxDiscordUrl.replace(/\/+$/, '')}/sandbox` : null;
  return (
    <aside aria-label="Sandbox mode" className="border-b border-warning/60 bg-warning/15 px-4 py-2 text-center text-sm text-fg">
      <strong className="font-semibold text-heading">Sandbox mode</strong>
      <span> — no real Discord server is connected; sign-ins, members and roles are simulated.</span>
      {sandboxViewUrl ? (
        <>
          {' '}
          <a href={sandboxViewUrl} target="_blank" rel="noreferrer" className="font-medium">
            Open the sandbox Discord view
          </a>
        </>
      ) : null}
    </aside>
  );
}
