import { PermissionFlagsBits } from 'discord-api-types/v10';
import { createManualClock } from '../clock';
import type { Database } from '../db/client';
import { createBotRest } from '../discord/discord-rest';
import { createDiscordEmulator, type DiscordEmulator } from '../discord-emulator';
import { createVerificationLevelCall } from '../discord/lockdown-verification-level-call';
import { parseEnv } from '../env';
import { silentLogger } from '../logger';
import { createAdmissionService } from '../modules/admission';
import { defaultSettings, type OwnerSettings } from '../modules/settings';
import { resetDatabase } from './database';
import { emulatorOutboxWorker } from './emulator-guild';

export const LOCKDOWN_STAFF = { type: 'staff' as const, id: '1', name: 'Owner' };

/**
 * The lockdown's levers in Discord (the pause, the verification level) against the emulator, for a
 * describe block: one emulator on the product's clock, the database emptied and the bot given back
 * its permissions before each test. `settings` is what the admission service reads; a test may
 * replace it. `setUp()` starts a process (its outbox worker and admission service); a second call is
 * a restart on the same database.
 */
export function lockdownLevers(
  getDatabase: () => Database,
  before: { settings?: (defaults: OwnerSettings) => OwnerSettings; guild: (emulator: DiscordEmulator) => void },
) {
  const clock = createManualClock(new Date());
  const sealKey = Buffer.alloc(32, 9);
  let emulator: DiscordEmulator;
  let botRole: string;
  let botRolePermissions: bigint;
  const kit = {
    clock,
    get emulator() {
      return emulator;
    },
    settings: defaultSettings(parseEnv({ NODE_ENV: 'test' })),
    setUp,
    refuseManageServer: () => emulator.setRolePermissions(botRole, botRolePermissions & ~PermissionFlagsBits.ManageGuild),
    logsText: () =>
      emulator.state
        .messages(emulator.guild.channelId('logs'))
        .map((m) => m.content)
        .join('\n'),
  };

  beforeAll(async () => {
    // the emulator keeps the product's clock, so Discord's time limits are judged on the same time
    emulator = await createDiscordEmulator({ clock, rateLimits: false });
    botRole = emulator.state.sortedRoles().find((role) => role.tags?.bot_id === emulator.application.botUserId)!.id;
    botRolePermissions = BigInt(emulator.state.requireRole(botRole).permissions);
  });
  afterAll(async () => emulator.close());
  beforeEach(async () => {
    await resetDatabase(getDatabase());
    clock.set(new Date());
    const defaults = defaultSettings(parseEnv({ NODE_ENV: 'test' }));
    kit.settings = before.settings ? before.settings(defaults) : defaults;
    emulator.setRolePermissions(botRole, botRolePermissions);
    before.guild(emulator);
    emulator.state.auditLog.length = 0;
  });

  function setUp() {
    const database = getDatabase();
    const rest = createBotRest({ apiBase: emulator.apiBase, botToken: emulator.application.botToken, timeoutMs: 5000 });
    const verificationLevel = createVerificationLevelCall({
      rest,
      database,
      guildId: emulator.guild.id,
      logger: silentLogger,
      now: () => clock.now(),
    });
    const { outbox, worker } = emulatorOutboxWorker(emulator, { database, rest, clock, sealKey, logLingerMs: 0, verificationLevel });
    const admission = createAdmissionService({ database, clock, settings: { snapshot: () => kit.settings }, outbox });
    return { admission, worker, database, outbox };
  }

  return kit;
}
