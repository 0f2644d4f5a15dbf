import { setTimeout as sleep } from 'node:timers/promises';
import { describeEngines } from '../../test-support/database';
import { useTestGatekeeper } from '../../test-support/gatekeeper';

jest.setTimeout(60_000);

const OWNER = { type: 'staff' as const, id: '1', name: 'Owner' };

/** Waits for the bot to have handled a gateway event (it arrives over the emulator's socket). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 250; i++) {
    const value = await read();
    if (done(value)) return value;
    await sleep(20);
  }
  return read();
}

describeEngines("Discord's raid detection raises Gatekeeper's raid alarm", (getDatabase) => {
  const server = useTestGatekeeper(getDatabase);

  it('GUILD_UPDATE with raid_detected_at raises one alarm saying Discord detected it; with auto-lockdown on the lockdown starts and pauses invites', async () => {
    const { services } = server.handle;
    const emulator = server.handle.discord.emulator!;
    await services.settings.update(OWNER, { autoLockdown: true });

    emulator.detectRaid();
    // the gateway event is handled in the background: the alarm is recorded, then the lockdown switched on
    const status = await eventually(
      () => services.admission.status(),
      (s) => s.alarms.length > 0 && s.lockdown.on,
    );
    expect(status.alarms).toEqual([expect.objectContaining({ reasons: ['discord_detected'], lockdownStarted: true })]);
    expect(status.lockdown).toMatchObject({ on: true, reason: 'raid detected by Discord' });

    await services.outboxWorker.drain();
    expect(emulator.state.guild.incidents.invites_disabled_until).not.toBeNull();
    const logs = emulator.state
      .messages(emulator.guild.channelId('logs'))
      .map((m) => m.content)
      .join('\n');
    expect(logs).toContain('Raid alarm: Discord detected a raid on this server');

    // the same detection again (any later GUILD_UPDATE, a restart's GUILD_CREATE) raises nothing more
    const detectedAt = emulator.state.guild.incidents.raid_detected_at!;
    expect(await services.admission.discordRaidDetected(detectedAt)).toBe(false);
    expect((await services.admission.status()).alarms).toHaveLength(1);
  });
});
