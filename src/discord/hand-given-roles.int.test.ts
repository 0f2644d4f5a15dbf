import { createAppealsService } from '../modules/appeals';
import { createMembersService } from '../modules/members';
import type { GatekeeperHandle } from '../server';
import { describeOnPgliteOnly, resetDatabase } from '../test-support/database';
import { SHORT_DISCORD_WINDOWS, startTestGatekeeper, walkVisitorFlow } from '../test-support/gatekeeper';
import { slashCommandKit } from '../test-support/slash-commands';

jest.setTimeout(120_000);

/**
 * A moderator gives a member roles by hand (pronouns, pings) while Gatekeeper manages their
 * verification roles. The bot runs with the GUILDS intent only, so it never hears of those
 * roles: every role change it makes must leave them alone. Between each pair of the
 * product's role changes a new role is given by hand, and every role given so far must
 * still be there after the next change.
 */
describeOnPgliteOnly('roles given by hand survive every role change Gatekeeper makes', (getDatabase) => {
  let handle: GatekeeperHandle;
  let clock: { now(): Date };
  beforeAll(async () => {
    await resetDatabase(getDatabase());
    // the member's ~14 role changes go through one guild's role bucket: what is checked is which roles remain
    ({ handle, clock } = await startTestGatekeeper(getDatabase(), {}, SHORT_DISCORD_WINDOWS));
  });
  afterAll(async () => handle?.stop());

  it('keeps them through the button, /unverify, /manverify, Limited Access, alt statuses, an approved appeal and a lockdown release', async () => {
    const kit = slashCommandKit(handle);
    const { emulator } = kit;
    const user = kit.newMember('pronoun-person', ['Unverified']);
    const handGiven: string[] = [];
    /** a moderator gives a new role in Discord's client: the bot is not told */
    const giveByHand = (name: string) => {
      emulator.createRole({ name });
      emulator.grantRole(user.id, name);
      handGiven.push(name);
    };
    const expectRoles = (managed: string) => expect(kit.roleNames(user.id)).toEqual([...handGiven, managed].sort());
    const panel = () => emulator.findButton(kit.channelId('verification'), 'Complete Verification!')!;
    const click = async () => {
      const result = await emulator.clickButton({
        userId: user.id,
        channelId: kit.channelId('verification'),
        messageId: panel().messageId,
        customId: panel().customId,
      });
      await kit.drain();
      return result;
    };
    const staff = async (name: string, options: Record<string, string | boolean> = {}, subcommand?: string) => {
      const result = await kit.run(kit.staffId, name, options, subcommand);
      await kit.drain();
      return result;
    };
    const verifyOnWebsite = async () => {
      await walkVisitorFlow(handle, { userId: user.id, confirmRules: true });
      await kit.drain();
    };

    // the website (already in the server: only the role calls) and the button
    await verifyOnWebsite();
    expectRoles('Unverified');
    giveByHand('Pronouns: they/them');
    await click();
    expectRoles('Verified');

    giveByHand('Pings: events');
    await staff('unverify', { user: user.id });
    expectRoles('Unverified');

    giveByHand('Region: EU');
    await staff('manverify', { user: user.id });
    expectRoles('Verified');

    // Limited Access: a lockdown (its action: Limited Access) meets the next verification
    giveByHand('Colour: blue');
    await staff('unverify', { user: user.id });
    expectRoles('Unverified');
    giveByHand('Games: chess');
    await staff('lockdown', {}, 'on');
    await verifyOnWebsite();
    await click();
    expectRoles('Limited Access');

    // staff mark them a certain alt (no role changes), they appeal, staff approve
    giveByHand('Language: Dutch');
    await staff('alt-status', { user: user.id, status: 'certain' });
    expectRoles('Limited Access');
    const members = createMembersService({ database: getDatabase(), clock, outbox: handle.services.outbox });
    const appeals = createAppealsService({ database: getDatabase(), clock, outbox: handle.services.outbox, altLinks: members });
    await appeals.file(user.id, 'I was on the train wifi.');
    const appealId = Number((await getDatabase().query<{ id: number }>('select max(id) as id from appeals')).rows[0]!.id);
    await appeals.approve({ kind: 'discord', discordId: kit.staffId, username: 'sandbox-staff' }, appealId);
    await kit.drain();
    expectRoles('Verified');

    // held for review by a lockdown, then released with it
    giveByHand('Art: painter');
    await staff('unverify', { user: user.id });
    expectRoles('Unverified');
    giveByHand('Music: jazz');
    await handle.services.settings.update({ type: 'system', name: 'test' }, { lockdownAction: 'review' });
    await verifyOnWebsite();
    await click(); // held: no role change
    expectRoles('Unverified');
    await staff('lockdown', { release: true }, 'off');
    expectRoles('Verified');

    // an alt status set by staff changes no role
    giveByHand('Events: quiz');
    await staff('alt-status', { user: user.id, status: 'suspected' });
    expectRoles('Verified');
    await click();
    expectRoles('Verified');

    // and Discord's audit log says why for each change
    const reasons = emulator.state.auditLog.filter((e) => e.targetId === user.id).map((e) => e.reason);
    expect(reasons.every((reason) => reason?.startsWith('Gatekeeper: '))).toBe(true);
    // (no join: they were in the server with Unverified already)
    expect([...new Set(reasons)].sort()).toEqual(
      [
        'Gatekeeper: verified on the website',
        'Gatekeeper: unverified by staff (sandbox-staff)',
        'Gatekeeper: verified by staff (sandbox-staff)',
        'Gatekeeper: Limited Access (The server is in lockdown)',
        `Gatekeeper: appeal #${appealId} approved by staff (sandbox-staff)`,
        'Gatekeeper: released from review by staff (sandbox-staff), verified',
      ].sort(),
    );
  });
});
