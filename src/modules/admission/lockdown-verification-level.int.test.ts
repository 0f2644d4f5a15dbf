import { parseEnv } from '../../env';
import { describeOnPgliteOnly } from '../../test-support/database';
import { LOCKDOWN_STAFF as STAFF, lockdownLevers } from '../../test-support/lockdown-levers';
import { readLevelState, readLockdown } from '../raid';
import { defaultSettings } from '../settings';

jest.setTimeout(60_000);

const LOW = 1;
const HIGH = 3;

/**
 * The lockdown's verification level against the emulator: Get Guild and Modify Guild through the
 * outbox, the body checked against Discord's OpenAPI description (src/test-support/openapi-guard.ts).
 */
// what is checked is the calls Discord receives; the stored lockdown state is covered on both engines by the lockdown and pause tests
describeOnPgliteOnly("lockdown raises the server's verification level and puts it back", (getDatabase) => {
  const levers = lockdownLevers(getDatabase, {
    settings: (defaults) => ({ ...defaults, lockdownPauseInvites: false, lockdownVerificationLevel: 'high' }),
    guild: (emulator) => {
      emulator.state.guild.verificationLevel = LOW;
    },
  });
  const { setUp } = levers;
  const level = () => levers.emulator.state.guild.verificationLevel;
  const changes = () =>
    levers.emulator.state.auditLog
      .filter((entry) => entry.action === 'guild_update')
      .map((entry) => ({ changes: entry.changes, reason: entry.reason }));

  it('off by default: a lockdown leaves the level alone and makes no Modify Guild call', async () => {
    levers.settings = defaultSettings(parseEnv({ NODE_ENV: 'test' }));
    expect(levers.settings.lockdownVerificationLevel).toBe('off');
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
    levers.emulator.state.guild.verificationLevel = 4; // staff chose Highest in Server Settings meanwhile
    await admission.setLockdown(STAFF, { on: false });
    await worker.drain();
    expect(level()).toBe(4);
    expect(changes()).toHaveLength(1);
    expect(await readLevelState(getDatabase().db)).toMatchObject({ restore: 'changed_by_staff', raisedTo: null });
  });

  it('a server already at least that strict is left alone, and nothing is put back', async () => {
    levers.emulator.state.guild.verificationLevel = 4;
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
    levers.refuseManageServer();
    await admission.setLockdown(STAFF, { on: true, reason: 'raid' });
    await worker.drain();
    expect(level()).toBe(LOW);
    expect((await readLockdown(getDatabase().db)).on).toBe(true);
    const status = await admission.status();
    expect(status.verificationLevel.call).toMatchObject({ status: 'failed' });
    expect(status.verificationLevel.call?.error).toContain('"Manage Server"');
    const logs = levers.logsText();
    expect(logs).toContain("Could not change the server's verification level for the lockdown");
    expect(logs).toContain('The lockdown still holds in Gatekeeper');
  });
});
