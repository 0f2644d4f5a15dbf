import type { REST } from '@discordjs/rest';
import type { DiscordEmulator } from '../discord-emulator';
import { createGuildDirectory, type GuildNames } from '../discord/guild-directory';
import { createOutboxWorker } from '../discord/outbox/outbox-worker';
import { silentLogger } from '../logger';
import { createOutboxRepository } from '../modules/outbox';

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

type OutboxWorkerDeps = Parameters<typeof createOutboxWorker>[0];

/**
 * The outbox's repository and a worker sending its actions to the emulator's seeded guild, as the tests
 * run them: polled every 50 ms, logging nothing, linking to a test website; `options` add or replace any
 * of the worker's own.
 */
export function emulatorOutboxWorker(
  emulator: DiscordEmulator,
  {
    database,
    rest,
    clock,
    sealKey,
    ...options
  }: Pick<OutboxWorkerDeps, 'database' | 'rest' | 'clock' | 'sealKey'> & Partial<OutboxWorkerDeps>,
) {
  const outbox = createOutboxRepository({ sealKey, now: () => clock.now() });
  const worker = createOutboxWorker({
    database,
    outbox,
    rest,
    directory: emulatorGuildDirectory(rest, emulator),
    sealKey,
    websiteUrl: 'http://gatekeeper.test',
    clock,
    logger: silentLogger,
    pollMs: 50,
    ...options,
  });
  return { outbox, worker };
}
