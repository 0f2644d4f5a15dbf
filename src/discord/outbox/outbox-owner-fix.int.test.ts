import { PermissionFlagsBits } from 'discord-api-types/v10';
import request from 'supertest';
import type { GatekeeperHandle } from '../../server';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { startTestGatekeeper, walkVisitorFlow } from '../../test-support/gatekeeper';
import { loginCookie, seedStaffAccount, TEAM } from '../../test-support/staff-test-kit';
import { BOT_ROLE_PERMISSIONS } from '../../discord-emulator';

jest.setTimeout(90_000);

/**
 * Discord refusing an action for the server's setup (403 Missing Permissions, 404 Unknown Role), or because
 * the member left (404 Unknown Member), or asking to wait (429), in the running product: no member's progress
 * is lost, the owner is told what to fix, and nothing is retried in a loop.
 */
describeEngines('Discord refuses an action: the owner is told the fix, the action waits and goes on once fixed', (getDatabase) => {
  let handle: GatekeeperHandle;
  let staffCookie: string;
  beforeAll(async () => {
    await resetDatabase(getDatabase());
    ({ handle } = await startTestGatekeeper(getDatabase()));
    await seedStaffAccount(getDatabase().db, TEAM.owner);
    staffCookie = await loginCookie(handle.url, TEAM.owner.username, TEAM.owner.password);
  });
  afterAll(async () => handle?.stop());
  // each test leaves the server as it found it, whatever it broke
  afterEach(async () => {
    emulator().faults.set('none');
    emulator().setRolePermissions(botRoleId(), BOT_ROLE_PERMISSIONS);
    emulator().setChannelOverwrites('logs', []);
    if (!emulator().state.roleByName('Verified')) emulator().createRole({ name: 'Verified' });
    await worker().drain();
  });

  const emulator = () => handle.discord.emulator!;
  const worker = () => handle.services.outboxWorker;
  const rolesOf = (userId: string) =>
    (emulator().state.guild.members.get(userId)?.roles ?? []).map((id: string) => emulator().state.guild.roles.get(id)?.name);
  const botRoleId = () =>
    emulator()
      .state.memberRoles(emulator().application.botUserId)
      .find((role) => role.tags?.bot_id === emulator().application.botUserId)!.id;
  /** Role calls (Add / Remove Guild Member Role) Discord received for this member since `from`. */
  const roleCalls = (userId: string, from: number) =>
    emulator()
      .state.requestLog.slice(from)
      .filter((e) => new RegExp(`/members/${userId}/roles/`).test(e.path));
  const row = async (kind: string, userId: string) =>
    (
      await getDatabase().query<{ status: string; attempts: number; last_error: string | null }>(
        `select status, attempts, last_error from discord_outbox where kind = $1 and discord_id = $2 order by id desc limit 1`,
        [kind, userId],
      )
    ).rows[0];
  const setup = async () =>
    (await request(handle.url).get('/api/admin/discord-setup').set('Cookie', staffCookie).expect(200)).body as {
      problems: { problem: string; fix: string }[];
      waiting: { count: number; reasons: { message: string; count: number }[] };
    };

  /** A newcomer verified on the website and in the server as Unverified, clicking the button (after `before`): their role change is queued. */
  async function clickVerify(username: string, before: () => void = () => undefined) {
    const user = emulator().createUser({ username });
    await walkVisitorFlow(handle, { userId: user.id, confirmRules: true });
    await worker().drain();
    expect(rolesOf(user.id)).toEqual(['Unverified']);
    before();
    const channelId = emulator().guild.channelId('verification');
    const button = emulator().findButton(channelId, 'Complete Verification!')!;
    await emulator().clickButton({ userId: user.id, channelId, messageId: button.messageId, customId: button.customId });
    return user;
  }

  it('403 Missing Permissions on a role change: parked with "Manage Roles" and the fix, shown to staff, not retried, done once fixed', async () => {
    const user = await clickVerify('no-manage-roles', () =>
      emulator().setRolePermissions(botRoleId(), BOT_ROLE_PERMISSIONS & ~PermissionFlagsBits.ManageRoles),
    );
    const from = emulator().state.requestLog.length;
    await worker().drain();

    expect(rolesOf(user.id)).toEqual(['Unverified']);
    const parked = await row('update_roles', user.id);
    expect(parked).toMatchObject({ status: 'pending', attempts: 0 });
    expect(parked!.last_error).toContain('403 50013: Missing Permissions');
    expect(parked!.last_error).toContain('"Manage Roles"');
    expect(parked!.last_error).toContain('Fix: Server Settings → Roles');
    const report = await setup();
    expect(report.problems.map((p) => p.problem)).toContainEqual(expect.stringContaining('"Manage Roles"'));
    expect(report.waiting.reasons).toContainEqual({ message: parked!.last_error, count: 1 });

    // running again, and again, sends nothing for it: it waits for the fix
    await worker().drain();
    await worker().drain();
    expect(roleCalls(user.id, from)).toHaveLength(1);
    expect((await row('update_roles', user.id))!.status).toBe('pending');

    emulator().setRolePermissions(botRoleId(), BOT_ROLE_PERMISSIONS);
    await worker().drain();
    expect(rolesOf(user.id)).toEqual(['Verified']);
    expect((await row('update_roles', user.id))!.status).toBe('done');
    expect((await setup()).waiting.count).toBe(0);
  });

  it('403 on posting to #logs: the line waits, naming "View Channel"/"Send Messages" in #logs, and is posted once allowed', async () => {
    const user = await clickVerify('logs-denied', () =>
      emulator().setChannelOverwrites('logs', [{ role: botRoleId(), deny: PermissionFlagsBits.SendMessages }]),
    );
    await handle.services.outbox.enqueue(
      getDatabase().db,
      ...Array.from({ length: 10 }, (_, n) => ({ kind: 'log_message' as const, text: `line ${n} while #logs is closed to the bot` })),
    );
    const from = emulator().state.requestLog.length;
    await worker().drain();
    // the lines Discord refused are explained by one self-check per refused post (one read of the guild; the bot's
    // own re-check after the channel changed adds one), not one per line
    expect(
      emulator()
        .state.requestLog.slice(from)
        .filter((e) => e.method === 'GET' && e.path === `/guilds/${emulator().guild.id}`).length,
    ).toBeLessThanOrEqual(3);
    expect(rolesOf(user.id)).toEqual(['Verified']); // the role change is not held up by the logs channel

    const { rows } = await getDatabase().query<{ status: string; last_error: string | null; text: string }>(
      `select status, last_error, payload->>'text' as text from discord_outbox where kind = 'log_message' and status <> 'done'`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const line of rows) {
      expect(line.status).toBe('pending');
      expect(line.last_error).toContain('403 50013: Missing Permissions');
      expect(line.last_error).toMatch(/In #logs the bot lacks "Send Messages"/);
    }
    expect((await setup()).waiting.count).toBe(rows.length);

    emulator().setChannelOverwrites('logs', []);
    await worker().drain();
    const posted = JSON.stringify(emulator().state.messages(emulator().guild.channelId('logs')));
    expect((await getDatabase().query(`select 1 from discord_outbox where kind = 'log_message' and status <> 'done'`)).rows).toHaveLength(
      0,
    );
    expect(posted).toContain('line 9 while #logs is closed to the bot');
  });

  it('404 Unknown Role: the Verified role deleted in Discord parks the change naming the setting to change; running again sends nothing; a new role lets it go on', async () => {
    const user = await clickVerify('role-deleted', () => emulator().deleteRole('Verified'));
    const from = emulator().state.requestLog.length;
    await worker().drain();

    expect(rolesOf(user.id)).toEqual(['Unverified']);
    const parked = await row('update_roles', user.id);
    expect(parked).toMatchObject({ status: 'pending', attempts: 0 });
    expect(parked!.last_error).toContain('The Verified role "Verified" does not exist in Discord (deleted or renamed)');
    expect(parked!.last_error).toContain(
      'Fix: Set the Verified role setting (dashboard Settings, or DISCORD_VERIFIED_ROLE) to an existing role',
    );
    expect((await setup()).waiting.reasons.map((r) => r.message)).toContain(parked!.last_error);

    const callsBefore = roleCalls(user.id, from).length;
    expect(callsBefore).toBeLessThanOrEqual(1); // the one call that met Unknown Role, if the role's id was known
    for (let i = 0; i < 3; i++) await worker().drain();
    expect(roleCalls(user.id, from)).toHaveLength(callsBefore);

    emulator().createRole({ name: 'Verified' });
    await worker().drain();
    expect(rolesOf(user.id)).toEqual(['Verified']);
    expect((await row('update_roles', user.id))!.status).toBe('done');
  });

  it('404 Unknown Member: the member left before the change; it ends done with a line saying what happens when they rejoin', async () => {
    const user = await clickVerify('left-early');
    emulator().removeGuildMember(user.id); // after the click: the change was queued for a member
    await worker().drain();
    expect(await row('update_roles', user.id)).toMatchObject({ status: 'done', last_error: null });
    const { rows } = await getDatabase().query<{ text: string }>(
      `select payload->>'text' as text from discord_outbox where kind = 'log_message' and discord_id = $1`,
      [user.id],
    );
    expect(rows.map((r) => r.text)).toContain(
      `ℹ️ <@${user.id}> is not in the server, so their roles were not changed: they get the right roles when they rejoin through the website.`,
    );
    expect(
      (await getDatabase().query(`select 1 from discord_outbox where status = 'failed' and discord_id = $1`, [user.id])).rows,
    ).toHaveLength(0);
  });

  it('429 with Retry-After on a role change: the wait is kept, the attempt is not counted as a failure, and the change is done after it', async () => {
    const user = await clickVerify('rate-limited');
    const failedBefore = worker().stats.failed;
    const retriedBefore = worker().stats.retried;
    emulator().faults.set('rate429', { routes: new RegExp(`/members/${user.id}/roles/`), count: 1, retryAfterSeconds: 1 });
    const started = Date.now();
    await worker().drain();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(emulator().faults.injected.rate429).toBeGreaterThanOrEqual(1);
    expect(rolesOf(user.id)).toEqual(['Verified']);
    expect(await row('update_roles', user.id)).toMatchObject({ status: 'done', attempts: 1 });
    expect(worker().stats.failed).toBe(failedBefore);
    expect(worker().stats.retried).toBe(retriedBefore);
  });
});
