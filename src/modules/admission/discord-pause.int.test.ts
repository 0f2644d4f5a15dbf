import { describeEngines } from '../../test-support/database';
import { LOCKDOWN_STAFF as STAFF, lockdownLevers } from '../../test-support/lockdown-levers';
import { DISCORD_PAUSE_MS, DISCORD_PAUSE_RENEW_AFTER_MS, readLockdown } from '../raid';

jest.setTimeout(60_000);

/**
 * The lockdown's pause in Discord against the emulator: every call goes through the outbox to the
 * emulator's Modify Guild Incident Actions, whose body the OpenAPI check validates (a departure fails
 * the test, src/test-support/openapi-guard.ts).
 */
describeEngines('lockdown pauses invites and DMs in Discord', (getDatabase) => {
  const levers = lockdownLevers(getDatabase, {
    guild: (emulator) => {
      emulator.state.guild.incidents = { ...emulator.state.guild.incidents, invites_disabled_until: null, dms_disabled_until: null };
    },
  });
  const { clock, setUp } = levers;
  const incidents = () => levers.emulator.state.guild.incidents;
  const calls = () => levers.emulator.state.auditLog.filter((entry) => entry.action === 'guild_incident_actions');

  it('lockdown on pauses invites just under 24 hours ahead; the job renews it while it holds; off lifts it', async () => {
    const { admission, worker } = setUp();
    const start = clock.now();
    await admission.setLockdown(STAFF, { on: true, reason: 'raid' });
    await worker.drain();
    const until = new Date(start.getTime() + DISCORD_PAUSE_MS).toISOString();
    expect(incidents()).toMatchObject({ invites_disabled_until: until, dms_disabled_until: null });
    expect(calls()).toEqual([
      expect.objectContaining({
        changes: { invites_disabled_until: until, dms_disabled_until: null },
        reason: 'Gatekeeper: lockdown switched on by staff (Owner): invites paused',
      }),
    ]);
    expect((await admission.status()).discordPause).toMatchObject({
      invites: true,
      dms: false,
      until,
      call: { status: 'done', error: null },
    });

    // before the renewal is due, the job asks nothing
    clock.advance(DISCORD_PAUSE_RENEW_AFTER_MS - 60_000);
    expect(await admission.renewDiscordPause()).toBeNull();
    clock.advance(60_000);
    expect(await admission.renewDiscordPause()).toBe('pause');
    await worker.drain();
    expect(incidents().invites_disabled_until).toBe(new Date(clock.now().getTime() + DISCORD_PAUSE_MS).toISOString());
    expect(calls()).toHaveLength(2);

    await admission.setLockdown(STAFF, { on: false });
    await worker.drain();
    expect(incidents()).toMatchObject({ invites_disabled_until: null, dms_disabled_until: null });
    expect(calls().at(-1)).toMatchObject({
      changes: { invites_disabled_until: null, dms_disabled_until: null },
      reason: 'Gatekeeper: lockdown switched off by staff (Owner): invites lifted',
    });
    // nothing left to lift
    expect(await admission.renewDiscordPause()).toBeNull();
  });

  it('pauses DMs too when the owner chose it, and a change of choice during the lockdown is sent at the next run of the job', async () => {
    const { admission, worker } = setUp();
    levers.settings = { ...levers.settings, lockdownPauseDms: true };
    await admission.setLockdown(STAFF, { on: true });
    await worker.drain();
    expect(incidents().dms_disabled_until).toBe(incidents().invites_disabled_until);
    expect(incidents().dms_disabled_until).not.toBeNull();

    levers.settings = { ...levers.settings, lockdownPauseDms: false };
    expect(await admission.renewDiscordPause()).toBe('pause');
    await worker.drain();
    expect(incidents().dms_disabled_until).toBeNull();
    expect(incidents().invites_disabled_until).not.toBeNull();
  });

  it('with both pauses off the lockdown makes no Discord call', async () => {
    const { admission, worker } = setUp();
    levers.settings = { ...levers.settings, lockdownPauseInvites: false, lockdownPauseDms: false };
    await admission.setLockdown(STAFF, { on: true });
    await worker.drain();
    expect(calls()).toEqual([]);
    expect((await admission.status()).discordPause.call).toBeNull();
  });

  it('a call queued and not sent yet is replaced by the newer one: on then off before the outbox ran sends only the lift', async () => {
    const { admission, worker } = setUp();
    await admission.setLockdown(STAFF, { on: true });
    await admission.setLockdown(STAFF, { on: false });
    await worker.drain();
    expect(calls().map((c) => c.changes)).toEqual([{ invites_disabled_until: null, dms_disabled_until: null }]);
  });

  it('Discord refusing for want of Manage Server: the lockdown still holds and the owner is told which permission is missing', async () => {
    const { admission, worker } = setUp();
    levers.refuseManageServer();
    await admission.setLockdown(STAFF, { on: true, reason: 'raid' });
    await worker.drain();
    expect(incidents().invites_disabled_until).toBeNull();
    expect((await readLockdown(getDatabase().db)).on).toBe(true);
    const status = await admission.status();
    expect(status.lockdown.on).toBe(true);
    expect(status.discordPause.call).toMatchObject({ status: 'failed' });
    expect(status.discordPause.call?.error).toContain('"Manage Server"');
    // the #logs line is queued by the refused call's handling, so it may need another pass of the outbox
    for (let pass = 0; pass < 5 && !levers.logsText().includes("Could not change the lockdown's pause in Discord"); pass++)
      await worker.drain();
    const logs = levers.logsText();
    expect(logs).toContain("Could not change the lockdown's pause in Discord");
    expect(logs).toContain('The lockdown still holds in Gatekeeper');
  });

  it('the emulator refuses a pause more than 24 hours ahead, as Discord does (50035)', async () => {
    const { worker, database, outbox } = setUp();
    const tooFar = new Date(clock.now().getTime() + 25 * 60 * 60 * 1000).toISOString();
    await database.db.transaction((tx) =>
      outbox.enqueue(tx, { kind: 'incident_actions', invitesDisabledUntil: tooFar, dmsDisabledUntil: null, reason: 'Gatekeeper: test' }),
    );
    await worker.drain();
    const [row] = (
      await database.query<{ status: string; last_error: string }>(
        `select status, last_error from discord_outbox where kind = 'incident_actions'`,
      )
    ).rows;
    expect(row?.status).toBe('failed');
    expect(row?.last_error).toContain('50035');
    expect(incidents().invites_disabled_until).toBeNull();
  });
});
