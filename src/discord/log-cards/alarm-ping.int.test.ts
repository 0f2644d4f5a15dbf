import { setTimeout as sleep } from 'node:timers/promises';
import type { APIMessage } from 'discord-api-types/v10';
import { describeOnPgliteOnly } from '../../test-support/database';
import { buildFingerprint, SHORT_DISCORD_WINDOWS, useTestGatekeeper, walkVisitorFlow } from '../../test-support/gatekeeper';

jest.setTimeout(90_000);

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

/** What a #logs message says, its text and its cards' text together. */
const textOf = (message: APIMessage) => [message.content, ...message.embeds.map((e) => e.description ?? '')].join('\n');
const isAlarm = (message: APIMessage) => /🔎 Alt detected: .* is a certain-confidence alt|🚨 Raid alarm/.test(textOf(message));
/** Who the message pinged, as the emulator recorded it from the body's allowed_mentions. */
const pings = (message: APIMessage) => ({
  roles: message.mention_roles,
  users: message.mentions.map((u) => u.id),
  everyone: message.mention_everyone,
});
const NOBODY = { roles: [], users: [], everyone: false };
/** Which alarms the messages carry: one post each for the certain alt, Gatekeeper's raid alarm and Discord's. */
const ALARMS = {
  certainAlt: 'certain-confidence alt',
  raid: 'Raid alarm: 2 verifications in 1 min',
  discordRaid: 'Raid alarm: Discord detected a raid',
};
const ALARM_KINDS = { certainAlt: 1, raid: 1, discordRaid: 1 };
const kindsOf = (messages: APIMessage[]) =>
  Object.fromEntries(Object.entries(ALARMS).map(([kind, words]) => [kind, messages.filter((m) => textOf(m).includes(words)).length]));

// what is checked is the body Discord receives; the engine only stores the setting, which settings.int.test.ts covers on both
describeOnPgliteOnly('#logs: the alarm role is pinged for a certain alt and a raid alarm, and for nothing else', (getDatabase) => {
  // a dozen #logs posts in one channel: what is checked is who they ping
  const server = useTestGatekeeper(getDatabase, {}, SHORT_DISCORD_WINDOWS);
  const emulator = () => server.handle.discord.emulator!;
  const logs = () => emulator().state.messages(emulator().guild.channelId('logs'));

  /**
   * Two accounts from one browser (a certain alt), which with these raid settings is also a burst that
   * raises Gatekeeper's raid alarm, then Discord's own raid detection. Returns the #logs messages they posted.
   */
  async function certainAltAndRaids(device: string): Promise<APIMessage[]> {
    const { services } = server.handle;
    const before = logs().length;
    const alarmsBefore = (await services.admission.status()).alarms.length;
    const fingerprint = buildFingerprint(device);
    const main = emulator().createUser({ username: `${device}-main` });
    const alt = emulator().createUser({ username: `${device}-alt` });
    await walkVisitorFlow(server.handle, { userId: main.id, fingerprint, confirmRules: true });
    await walkVisitorFlow(server.handle, { userId: alt.id, fingerprint, confirmRules: true });
    emulator().detectRaid();
    // Gatekeeper's alarm and Discord's (handled in the background, from the gateway event)
    await eventually(
      () => services.admission.status(),
      (s) => s.alarms.length === alarmsBefore + 2,
    );
    await services.outboxWorker.drain();
    return logs().slice(before);
  }

  beforeAll(async () => {
    // two verifications in a minute are a raid here, so that the walk above raises Gatekeeper's own alarm
    await server.handle.services.settings.update(OWNER, { raidWindowMinutes: 1, raidMinVerifications: 2, raidRateFactor: 2 });
  });

  it('with no role set (the default), every post pings nobody', async () => {
    expect((await server.handle.services.settings.current()).alarmPingRole).toBeNull();
    const posted = await certainAltAndRaids('unset-laptop');
    expect(kindsOf(posted.filter(isAlarm))).toEqual(ALARM_KINDS);
    for (const message of posted) {
      expect(pings(message)).toEqual(NOBODY);
      expect(message.content).not.toContain('<@&');
    }
  });

  it('with a role set, the posts of a certain alt and of both raid alarms ping that role alone; every other post pings nobody', async () => {
    const role = emulator().guild.roleId('Staff');
    await server.handle.services.settings.update(OWNER, { alarmPingRole: role });
    // past the last alarm's window, so that the burst raises a new one
    server.clock.advance(2 * 60_000);
    const posted = await certainAltAndRaids('set-laptop');

    const alarms = posted.filter(isAlarm);
    expect(kindsOf(alarms)).toEqual(ALARM_KINDS);
    for (const message of alarms) {
      expect(pings(message)).toEqual({ roles: [role], users: [], everyone: false });
      expect(message.content.startsWith(`<@&${role}>`)).toBe(true);
    }
    const others = posted.filter((m) => !isAlarm(m));
    // the alt's denial and the verifications' lines are posted too, and ping nobody
    expect(others.length).toBeGreaterThan(0);
    for (const message of others) {
      expect(pings(message)).toEqual(NOBODY);
      expect(message.content).not.toContain('<@&');
    }
  });
});
