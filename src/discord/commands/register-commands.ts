import type { REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import { COMMANDS } from './definitions';

/** Registers (overwrites) the guild's slash commands: instant, unlike global commands. */
export async function registerCommands(rest: REST, input: { applicationId: string; guildId: string }): Promise<number> {
  const result = (await rest.put(Routes.applicationGuildCommands(input.applicationId, input.guildId), { body: COMMANDS })) as unknown[];
  return result.length;
}
