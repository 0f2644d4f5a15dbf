import type { GatekeeperHandle } from '../../server';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildFingerprint, startTestGatekeeper, walkVisitorFlow } from '../../test-support/gatekeeper';

jest.setTimeout(60_000);

/** The certain-alt action's kick says in Discord's audit log whose alt the member is. */
describeEngines("certain alt kicked at the button: the reason in Discord's audit log", (getDatabase) => {
  let handle: GatekeeperHandle;
  beforeAll(async () => {
    await resetDatabase(getDatabase());
    ({ handle } = await startTestGatekeeper(getDatabase(), { CERTAIN_ALT_ACTION: 'kick' }));
  });
  afterAll(async () => handle?.stop());

  it('names the main, and the join says why the user was added', async () => {
    const emulator = handle.discord.emulator!;
    const device = buildFingerprint('kick-laptop');
    const main = emulator.createUser({ username: 'kickmain' });
    const alt = emulator.createUser({ username: 'kickalt' });
    await walkVisitorFlow(handle, { userId: main.id, fingerprint: device, confirmRules: true });
    await walkVisitorFlow(handle, { userId: alt.id, fingerprint: device, confirmRules: true });
    await handle.services.outboxWorker.drain();
    const button = emulator.findButton(emulator.guild.channelId('verification'), 'Complete Verification!')!;
    await emulator.clickButton({
      userId: alt.id,
      channelId: emulator.guild.channelId('verification'),
      messageId: button.messageId,
      customId: button.customId,
    });
    await handle.services.outboxWorker.drain();

    expect(emulator.state.guild.members.has(alt.id)).toBe(false);
    const reasons = (action: string) =>
      emulator.state.auditLog.filter((e) => e.action === action && e.targetId === alt.id).map((e) => e.reason);
    expect(reasons('member_kick')).toEqual(['Gatekeeper: certain alt of @kickmain, denied at the button (kick)']);
    expect(reasons('member_add')).toEqual(['Gatekeeper: signed in on the website to verify (Unverified until they complete verification)']);
  });
});
