import { PermissionFlagsBits } from 'discord-api-types/v10';
import { createManualClock } from '../../clock';
import { createBotRest } from '../../discord/discord-rest';
import { createDiscordEmulator, type DiscordEmulator } from '../../discord-emulator';
import { createVerificationLevelCall } from '../../discord/lockdown-verification-level-call';
import { createOutboxWorker } from '../../discord/outbox/outbox-worker';
import { parseEnv } from '../../env';
import { silentLogger } from '../../logger';
import { describeOnPgliteOnly, resetDatabase } from '../../test-support/database';
import { emulatorGuildDirectory } from '../../test-support/emulator-guild';
import { createOutboxRepository } from '../outbox';
import { readLevelState, readLockdown } from '../raid';
import { defaultSettings, type OwnerSettings } from '../settings';
import { createAdmissionService } from './admission.service';

jest.setTimeout(60_000);

const STAFF = { type: 'staff' as const, id: '1', name: 'Owner' };
const LOW = 1;
const HIGH = 3;

/**
 * The lockdown's verification level against the emulator: Get Guild and Modify Guild through the
 * outbox, the body checked against Discord's OpenAPI description (src/test-support/openapi-guard.ts).
 */
// what is checked is the calls Discord receives; the stored lockdown state is covered on both engines by the lockdown and pause tests
describeOnPgliteOnly("lockdown raises the server's verification level and puts it back", (getDatabase) => {
  let emulator: DiscordEmulator;
  const clock = createManualClock(new Date());
  const sealKey = Buffer.alloc(32, 9);
  let settings: OwnerSettings;
  let botRolePermissions: bigint;
  let BOT_ROLE: string;

  beforeAll(async () => {
    emulator = await createDiscordEmulator({ clock, rateLimits: false });
    BOT_ROLE = emulator.state.sortedRoles().find((role) => role.tags?.bot_id === emulator.application.botUserId)!.id;
    botRolePermissions = BigInt(emulator.state.requireRole(BOT_ROLE).permissions);
  });
  afterAll(async () => emulator.close());
  beforeEach(async () => {
    await resetDatabase(getDatabase());
    settings = { ...defaultSettings(parseEnv({ NODE_ENV: 'test' })), lockdownPauseInvites: false, lockdownVerificationLevel: 'high' };
    emulator.setRolePermissions(BOT_ROLE, botRolePermissions);
    emulator.state.guild.verificationLevel = LOW;
    emulator.state.auditLog.length = 0;
  });

  /** A process: its outbox worker and admission service (a second call is a restart on the same database). */
  function setUp() {
    const database = getDatabase();
    const outbox = createOutboxRepository({ sealKey, now: () => clock.now() });
    const rest = createBotRest({ apiBase: emulator.apiBase, botToken: emulator.application.botToken, timeoutMs: 5000 });
    const verificationLevel = createVerificationLevelCall({
      rest,
      database,
      guildId: emulator.guild.id,
      logger: silentLogger,
      now: () => clock.now(),
    });
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
      logLingerMs: 0,
      verificationLevel,
    });
    const admission = createAdmissionService({ database, clock, settings: { snapshot: () => settings }, outbox });
    return { admission, worker };
  }
  const level = () => emulator.state.guild.verificationLevel;
  const changes = () =>
    emulator.state.auditLog
      .filter((entry) => entry.action === 'guild_update')
      .map((entry) => ({ changes: entry.changes, reason: entry.reason }));

  it('off by default: a lockdown leaves the level alone and makes no Modify Guild call', async () => {
    settings = defaultSettings(parseEnv({ NODE_ENV: 'test' }));
    expect(settings.lockdownVerificationLevel).toBe('off');
    const { admission, worker } = setUp();
    await admission.setLockdown(STAFF, { on: true, reason: 'raid' });
    await worker.drain();
    await admission.setLockdown(STAFF, { on: false });
    await worker.drain();
    expect(level()).toBe(LOW);
    expect(changes()).toEqual([]);
  });

  it('raises the level during a lockdown (with the audit reason) and puts the previous one back after it, across a restart', async () => {
    const first = setUp();
    await first.admission.setLockdown(STAFF, { on: true, reason: 'raid' });
    await first.worker.drain();
    expect(level()).toBe(HIGH);
    expect(changes()).toEqual([
      {
        changes: { verification_level: HIGH },
        reason: 'Gatekeeper: lockdown switched on by staff (Owner): verification level raised to High',
      },
    ]);
    expect(await readLevelState(getDatabase().db)).toMatchObject({ raisedTo: HIGH, previous: LOW });
    expect((await first.admission.status()).verificationLevel).toMatchObject({
      want: 'raise',
      raisedTo: HIGH,
      previous: LOW,
      call: { status: 'done' },
    });
    // the renewal job asks nothing more while it holds
    expect(await first.admission.renewDiscordPause()).toBeNull();

    // a restart: a new process, the same database, then the lockdown ends
    const second = setUp();
    await second.admission.setLockdown(STAFF, { on: false });
    await second.worker.drain();
    expect(level()).toBe(LOW);
    expect(changes().at(-1)).toEqual({
      changes: { verification_level: LOW },
      reason: 'Gatekeeper: lockdown switched off by staff (Owner): verification level put back',
    });
    expect(await readLevelState(getDatabase().db)).toMatchObject({ want: 'restore', raisedTo: null, previous: null, restore: 'restored' });
  });

  it('does not put the level back when staff changed it during the lockdown', async () => {
    const { admission, worker } = setUp();
    await admission.setLockdown(STAFF, { on: true, reason: 'raid' });
    await worker.drain();
    emulator.state.guild.verificationLevel = 4; // staff chose Highest in Server Settings meanwhile
    await admission.setLockdown(STAFF, { on: false });
    await worker.drain();
    expect(level()).toBe(4);
    expect(changes()).toHaveLength(1);
    expect(await readLevelState(getDatabase().db)).toMatchObject({ restore: 'changed_by_staff', raisedTo: null });
  });

  it('a server already at least that strict is left alone, and nothing is put back', async () => {
    emulator.state.guild.verificationLevel = 4;
    const { admission, worker } = setUp();
    await admission.setLockdown(STAFF, { on: true, reason: 'raid' });
    await worker.drain();
    await admission.setLockdown(STAFF, { on: false });
    await worker.drain();
    expect(level()).toBe(4);
    expect(changes()).toEqual([]);
  });

  it('Discord refusing for want of Manage Server: the lockdown still holds and the owner is told which permission', async () => {
    const { admission, worker } = setUp();
    emulator.setRolePermissions(BOT_ROLE, botRolePermissions & ~PermissionFlagsBits.ManageGuild);
    await admission.setLockdown(STAFF, { on: true, reason: 'raid' });
    await worker.drain();
    expect(level()).toBe(LOW);
    expect((await readLockdown(getDatabase().db)).on).toBe(true);
    const status = await admission.status();
    expect(status.verificationLevel.call).toMatchObject({ status: 'failed' });
    expect(status.verificationLevel.call?.error).toContain('"Manage Server"');
    const logs = emulator.state
      .messages(emulator.guild.channelId('logs'))
      .map((m) => m.content)
      .join('\n');
    expect(logs).toContain("Could not change the server's verification level for the lockdown");
    expect(logs).toContain('The lockdown still holds in Gatekeeper');
  });
});
