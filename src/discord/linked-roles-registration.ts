import { DiscordAPIError, type REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import type { Logger } from '../logger';
import { ROLE_CONNECTION_METADATA } from '../modules/linked-roles';
import type { SetupProblem } from './bot-setup-check';

/** A failed registration is tried again at the next use once this long has passed. */
const RETRY_AFTER_MS = 5 * 60_000;

export type LinkedRolesState =
  { state: 'off' } | { state: 'registering' } | { state: 'available' } | { state: 'unavailable'; reason: string };

/**
 * Registers "Verified with Gatekeeper"'s metadata for the application (Update Application Role Connection
 * Metadata Records, bot token) while Linked Roles are turned on: at start, and again at the next use
 * after a failure. A failure marks Linked Roles unavailable with Discord's reason; verification itself
 * never depends on it.
 */
export function createLinkedRolesRegistration(deps: {
  rest: REST;
  applicationId: string;
  readonly enabled: boolean;
  logger: Logger;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  let result: { ok: true } | { ok: false; reason: string; at: number } | undefined;
  let running: Promise<void> | undefined;

  async function register(): Promise<void> {
    try {
      await deps.rest.put(Routes.applicationRoleConnectionMetadata(deps.applicationId), { body: ROLE_CONNECTION_METADATA });
      result = { ok: true };
      deps.logger.info('Linked Roles: the role-connection metadata is registered with Discord');
    } catch (error) {
      const reason =
        error instanceof DiscordAPIError
          ? `Discord refused the metadata (${error.status} ${error.code}: ${error.message})`
          : `Discord could not be reached (${error instanceof Error ? error.message : String(error)})`;
      result = { ok: false, reason, at: now() };
      deps.logger.warn({ reason }, 'Linked Roles are unavailable');
    }
  }

  return {
    /** Registers unless done already (or a failure is recent); resolves when settled, never rejects. */
    ensure(): Promise<void> {
      if (!deps.enabled || result?.ok || (result && now() - result.at < RETRY_AFTER_MS)) return running ?? Promise.resolve();
      running ??= register().finally(() => (running = undefined));
      return running;
    },
    state(): LinkedRolesState {
      if (!deps.enabled) return { state: 'off' };
      if (!result) return { state: 'registering' };
      return result.ok ? { state: 'available' } : { state: 'unavailable', reason: result.reason };
    },
    /** For the dashboard's setup banner: Linked Roles are on but unavailable, and why. */
    problem(): SetupProblem | null {
      const state = this.state();
      if (state.state !== 'unavailable') return null;
      return {
        problem: `Linked Roles are unavailable: ${state.reason}. Verification works as usual.`,
        fix: 'Check the application in the Discord Developer Portal (the bot token must belong to it); Gatekeeper tries again within five minutes, or turn Linked Roles off in Settings.',
        area: 'server',
      };
    },
  };
}

export type LinkedRolesRegistration = ReturnType<typeof createLinkedRolesRegistration>;
