import type { Database } from '../db/client';
import type { SlashOptionValue } from '../discord/emulator/interaction-driver';
import type { InteractionResult } from '../discord/emulator/interaction-record';
import type { GatekeeperHandle } from '../server';
import { useTestGatekeeper } from './gatekeeper';

/** Helpers for driving slash commands against the emulator in integration tests. */
export function slashCommandKit(handle: GatekeeperHandle) {
  const emulator = handle.discord.emulator!;
  const channelId = (name: string) => emulator.guild.channelId(name);

  /** The seeded 'sandbox-staff' (Staff role, Manage Server) and 'sandbox-member' (Verified, no permissions). */
  const staffId = emulator.state.findUserByName('sandbox-staff')!.id;
  const plainId = emulator.state.findUserByName('sandbox-member')!.id;

  return {
    emulator,
    staffId,
    plainId,
    channelId,
    /**
     * Runs a command as `userId` in #verification. Discord hides staff commands from members
     * without Manage Server, but server admins can widen access: the bot must still refuse.
     */
    async run(userId: string, name: string, options: Record<string, SlashOptionValue> = {}, subcommand?: string) {
      // a deferred answer may take longer than the emulator's default 10 s wait when three jest workers and the
      // PostgreSQL server share two cores (an empty answer once in a full run); the wait ends as soon as it comes
      const started = Date.now();
      const result = await emulator.runSlashCommand({ userId, channelId: channelId('verification'), name, options, subcommand, ignoreCommandPermissions: true }, { timeoutMs: 30_000 });
      // a command left unanswered failed once in a full CI run (the bot did not even defer within the 15 s
      // window) and could not be reproduced in dozens of loaded runs since: say what the bot and the gateway
      // were doing, so that the next such failure explains itself instead of comparing an empty text
      if (result.failed || !result.text) throw new Error(`/${name} ${subcommand ?? ''} got no answer: ${describeUnanswered(handle, result, Date.now() - started)}`);
      return result;
    },
    /** A new Discord account that is a member of the guild (with the given role names). */
    newMember(username: string, roles: string[] = ['Unverified']) {
      const user = emulator.createUser({ username });
      emulator.addGuildMember(user.id, roles);
      return user;
    },
    roleNames: (userId: string) => emulator.state.memberRoleNames(userId).filter((name) => name !== '@everyone').sort(),
    /** The text of every message in a channel, oldest first. */
    channelText: (name: string) => emulator.state.messages(channelId(name)).map((m) => m.content).join('\n'),
    drain: () => handle.services.outboxWorker.drain(),
  };
}

/** What the bot and the emulator's gateway were doing when an interaction went unanswered. */
function describeUnanswered(handle: GatekeeperHandle, result: InteractionResult, waitedMs: number): string {
  const { bot } = handle.services;
  const gateway = handle.discord.emulator!.gateway;
  return JSON.stringify({
    waitedMs,
    acknowledged: result.acknowledged,
    failed: result.failed,
    callbackType: result.callbackType,
    bot: { ready: bot.state.ready, leader: bot.state.leader, fatal: bot.state.fatal, answered: bot.dispatcher.stats },
    gateway: { connectedSessions: gateway.connectedSessions, ...gateway.stats },
  });
}

export type SlashCommandKit = ReturnType<typeof slashCommandKit>;

/** A Gatekeeper for the whole `describe` (see `useTestGatekeeper`) with its slash command kit in `server.kit`. */
export function useSlashCommandServer(getDatabase: () => Database, env: Record<string, string> = {}) {
  const server = useTestGatekeeper(getDatabase, env) as ReturnType<typeof useTestGatekeeper> & { kit: SlashCommandKit };
  beforeAll(() => {
    server.kit = slashCommandKit(server.handle);
  });
  return server;
}

/** Row counts of every table a command may write, to prove that a refusal wrote nothing. */
export async function countRows(database: Database): Promise<Record<string, number>> {
  const tables = ['members', 'verification_attempts', 'alt_links', 'admin_notes', 'discord_outbox', 'audit_log', 'shared_networks', 'appeals'];
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = Number((await database.query<{ n: string | number }>(`select count(*) as n from ${table}`)).rows[0]?.n ?? 0);
  return counts;
}
