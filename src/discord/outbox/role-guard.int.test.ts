import { PermissionFlagsBits } from 'discord-api-types/v10';
import request from 'supertest';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { startTestGatekeeper, walkVisitorFlow } from '../../test-support/gatekeeper';
import type { GatekeeperHandle } from '../../server';

jest.setTimeout(60_000);

describeEngines('a refused role choice in the running product: the self-check names it, the outbox never gives the role', (getDatabase) => {
  let handle: GatekeeperHandle;
  let clock: Awaited<ReturnType<typeof startTestGatekeeper>>['clock'];
  beforeAll(async () => {
    await resetDatabase(getDatabase());
    ({ handle, clock } = await startTestGatekeeper(getDatabase()));
  });
  afterAll(async () => handle?.stop());

  const emulator = () => handle.discord.emulator!;
  const rolesOf = (userId: string) =>
    (emulator().state.guild.members.get(userId)?.roles ?? []).map((id: string) => emulator().state.guild.roles.get(id)?.name);
  /** /healthz/discord once the bot's re-check after a role update has run */
  async function healthUntil(done: (body: { problems: { problem: string; fix: string }[] }) => boolean) {
    for (let i = 0; i < 50; i++) {
      const { body } = await request(handle.url).get('/healthz/discord');
      if (done(body)) return body as { status: string; problems: { problem: string; fix: string }[] };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the self-check did not change');
  }

  it("a Verified role carrying Administrator: named with its fix at /healthz/discord; the button's role change waits with the fix as its error, and goes through once fixed", async () => {
    const user = emulator().createUser({ username: 'newcomer' });
    await walkVisitorFlow(handle, { userId: user.id, confirmRules: true });
    await handle.services.outboxWorker.drain();
    expect(rolesOf(user.id)).toEqual(['Unverified']);

    emulator().setRolePermissions(emulator().guild.roleId('Verified'), PermissionFlagsBits.Administrator | PermissionFlagsBits.ViewChannel);
    const refused = await healthUntil((b) => b.problems.length > 0);
    expect(refused.status).toBe('misconfigured');
    expect(refused.problems).toEqual([
      {
        problem: 'The Verified role "Verified" carries "Administrator": everyone Gatekeeper gives it would hold it.',
        fix: 'Server Settings → Roles → "Verified": turn off "Administrator", or set the Verified role setting (dashboard Settings, or DISCORD_VERIFIED_ROLE) to a role without them.',
        area: 'role:verified',
      },
    ]);

    const button = emulator().findButton(emulator().guild.channelId('verification'), 'Complete Verification!')!;
    await emulator().clickButton({
      userId: user.id,
      channelId: emulator().guild.channelId('verification'),
      messageId: button.messageId,
      customId: button.customId,
    });
    await handle.services.outboxWorker.drain();
    expect(rolesOf(user.id)).toEqual(['Unverified']);
    const { rows } = await getDatabase().query<{ status: string; last_error: string }>(
      `select status, last_error from discord_outbox where kind = 'update_roles' and discord_id = $1`,
      [user.id],
    );
    expect(rows).toEqual([
      {
        status: 'pending',
        last_error: expect.stringContaining('Role configuration refused: The Verified role "Verified" carries "Administrator"'),
      },
    ]);

    // fixed in the server: the retry gives the role
    emulator().setRolePermissions(emulator().guild.roleId('Verified'), 0n);
    await healthUntil((b) => b.problems.length === 0);
    clock.advance(60_000);
    await handle.services.outboxWorker.drain();
    expect(rolesOf(user.id)).toEqual(['Verified']);
  });
});
