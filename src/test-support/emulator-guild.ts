import type { REST } from '@discordjs/rest';
import type { DiscordEmulator } from '../discord-emulator';
import { createGuildDirectory, type GuildNames } from '../discord/guild-directory';

/** The names the emulator's seeded guild uses for the managed roles and the two channels (the product's defaults). */
export function emulatorGuildNames(emulator: DiscordEmulator): GuildNames {
  return {
    guildId: emulator.guild.id,
    roles: { verified: 'Verified', limited: 'Limited Access', unverified: 'Unverified', staff: 'Staff' },
    verificationChannel: 'verification',
    logsChannel: 'logs',
  };
}

/** A guild directory for the emulator's seeded guild, read through `rest`. */
export function emulatorGuildDirectory(rest: REST, emulator: DiscordEmulator) {
  return createGuildDirectory(rest, emulatorGuildNames(emulator));
}
