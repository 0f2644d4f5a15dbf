import request from 'supertest';
import { createStaffTestApp, loginCookie, seedTeam, TEAM } from '../../test-support/staff-test-kit';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { createDiscordEmulator, createEmulatorRest } from '../../discord-emulator';
import { createGuildNamesCheck, createSettingsService, settingsFor } from './index';

describeEngines('owner settings', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;
  let owner: string;
  let admin: string;
  let mod: string;
  const knownNames = {
    role: ['Verified', 'Limited Access', 'Unverified', 'Staff', 'Members'],
    channel: ['verification', 'logs', 'audit-trail'],
  };

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    kit = createStaffTestApp(getDatabase(), {
      env: { RETENTION_DAYS: '21', CERTAIN_ALT_ACTION: 'kick', DISCORD_LOGS_CHANNEL: 'logs' },
      guildNames: { exists: async (kind, name) => knownNames[kind].some((n) => n.toLowerCase() === name.toLowerCase()) },
    });
    await seedTeam(getDatabase().db);
    owner = await loginCookie(kit.app, 'Owner', TEAM.owner.password);
    admin = await loginCookie(kit.app, 'Admin', TEAM.admin.password);
    mod = await loginCookie(kit.app, 'Mod', TEAM.mod.password);
  });

  const put = (cookie: string, body: unknown) =>
    request(kit.app)
      .put('/api/admin/settings')
      .set('Cookie', cookie)
      .send(body as object);
  const get = (cookie: string) => request(kit.app).get('/api/admin/settings').set('Cookie', cookie);
  const auditRows = async () =>
    (
      await getDatabase().query<{ actor_name: string; details: Record<string, unknown> }>(
        "select actor_name, details from audit_log where action = 'settings.updated' order by id",
      )
    ).rows;

  it('serves environment defaults until a value is stored, the stored value after, and the default again once cleared', async () => {
    const before = await get(mod);
    expect(before.status).toBe(200);
    expect(before.body.settings).toMatchObject({
      retentionDays: 21,
      certainAltAction: 'kick',
      vpnCheckFailure: 'allow',
      accountAgeMinDays: 0,
      logsChannel: 'logs',
    });
    expect(before.body.stored).toEqual({});
    expect((await request(kit.app).get('/api/config')).body.dataRetentionDays).toBe(21);

    const changed = await put(owner, { retentionDays: 60, certainAltAction: 'ban', logsChannel: 'audit-trail' });
    expect(changed.status).toBe(200);
    expect(changed.body.settings).toMatchObject({ retentionDays: 60, certainAltAction: 'ban', logsChannel: 'audit-trail' });
    expect(changed.body.stored).toEqual({ retentionDays: 60, certainAltAction: 'ban', logsChannel: 'audit-trail' });
    expect(changed.body.defaults).toMatchObject({ retentionDays: 21, certainAltAction: 'kick' });
    expect((await request(kit.app).get('/api/config')).body.dataRetentionDays).toBe(60);

    const cleared = await put(admin, { retentionDays: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.settings.retentionDays).toBe(21);
    expect(cleared.body.stored).toEqual({ certainAltAction: 'ban', logsChannel: 'audit-trail' });

    expect(await auditRows()).toEqual([
      {
        actor_name: 'Owner',
        details: {
          version: 1,
          changes: {
            retentionDays: { old: 21, new: 60, stored: true },
            certainAltAction: { old: 'kick', new: 'ban', stored: true },
            logsChannel: { old: 'logs', new: 'audit-trail', stored: true },
          },
        },
      },
      { actor_name: 'Admin', details: { version: 2, changes: { retentionDays: { old: 60, new: 21, stored: false } } } },
    ]);
  });

  it.each([
    [{ retentionDays: 0 }, 'Retention days must be at least 1', 'retentionDays'],
    [{ retentionDays: 2.5 }, 'Retention days must be a whole number', 'retentionDays'],
    [{ accountAgeMinDays: -3 }, 'Minimum account age must be at least 0', 'accountAgeMinDays'],
    [{ raidYoungAccountPercent: 101 }, 'Raid young-account share must be at most 100', 'raidYoungAccountPercent'],
    [{ certainAltAction: 'explode' }, 'Certain-alt action must be one of: none, kick, ban', 'certainAltAction'],
    [{ autoLockdown: 'yes' }, 'Auto-lockdown must be true or false', 'autoLockdown'],
    [{ verifiedRole: '   ' }, 'Verified role cannot be empty', 'verifiedRole'],
    [{ colour: 'blue' }, 'Unknown setting: colour', undefined],
    [{}, 'No settings to change', undefined],
    [{ retentionDays: 40, staffRole: 'Moderators' }, "The role 'Moderators' does not exist in the Discord server", 'staffRole'],
    [{ logsChannel: 'nowhere' }, "The channel 'nowhere' does not exist in the Discord server", 'logsChannel'],
    [{ alarmPingRole: 'Staff' }, 'Role to ping must be a role id (17 to 20 digits)', 'alarmPingRole'],
    [{ alarmPingRole: 42 }, 'Role to ping must be a role id', 'alarmPingRole'],
    [
      { alarmPingRole: '100000000000000077' },
      'The role to ping (id 100000000000000077) does not exist in the Discord server',
      'alarmPingRole',
    ],
  ])('refuses %j with a 400 and changes nothing', async (body, error, field) => {
    const res = await put(owner, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    if (field) expect(res.body.field).toBe(field);
    expect((await get(owner)).body.stored).toEqual({});
    expect(await auditRows()).toEqual([]);
  });

  it.each([
    [{ verifiedRole: 'Staff' }, 'The role "Staff" is chosen as both the Verified role and the Staff role.', 'verifiedRole'],
    [{ staffRole: 'verified' }, 'The role "Verified" is chosen as both the Verified role and the Staff role.', 'staffRole'],
    [
      { limitedRole: 'Unverified' },
      'The role "Unverified" is chosen as both the Limited Access role and the Unverified role.',
      'limitedRole',
    ],
  ])('refuses one role in two slots %j with a 400 naming the fix, and changes nothing', async (body, problem, field) => {
    const res = await put(owner, body);
    expect(res.status).toBe(400);
    expect((res.body.error as string).startsWith(`${problem} Give each its own role: choose another role for the `)).toBe(true);
    expect(res.body.field).toBe(field);
    expect((await get(owner)).body.stored).toEqual({});
    expect(await auditRows()).toEqual([]);
  });

  it('refuses a role that would hand out a dangerous permission or that the bot cannot give, read from the server; a safe role is stored', async () => {
    const emulator = await createDiscordEmulator({ rateLimits: false });
    try {
      const rest = createEmulatorRest(emulator);
      const server = createStaffTestApp(getDatabase(), {
        env: { DISCORD_LOGS_CHANNEL: 'logs' },
        guildNames: createGuildNamesCheck(rest, emulator.guild.id),
      });
      const cookie = await loginCookie(server.app, 'Owner', TEAM.owner.password);
      const save = (body: object) => request(server.app).put('/api/admin/settings').set('Cookie', cookie).send(body);
      emulator.createRole({
        name: 'Moderators',
        permissions: PermissionFlagsBits.BanMembers | PermissionFlagsBits.KickMembers,
        position: 1,
      });
      emulator.createRole({ name: 'Admins', permissions: PermissionFlagsBits.Administrator, position: 1 });
      const bot = emulator.state.memberRoles(emulator.application.botUserId)[0]!;
      emulator.createRole({ name: 'Above the bot', permissions: 0n, position: bot.position + 1 });
      emulator.createRole({ name: 'Members', permissions: PermissionFlagsBits.SendMessages, position: 1 });

      const cases: [object, string, string][] = [
        [
          { verifiedRole: 'Admins' },
          'The Verified role "Admins" carries "Administrator": everyone Gatekeeper gives it would hold it. Server Settings → Roles → "Admins": turn off "Administrator", or set the Verified role setting (dashboard Settings, or DISCORD_VERIFIED_ROLE) to a role without them.',
          'verifiedRole',
        ],
        [{ limitedRole: 'Moderators' }, 'The Limited Access role "Moderators" carries "Kick Members", "Ban Members"', 'limitedRole'],
        [{ unverifiedRole: '@everyone' }, 'The Unverified role is @everyone', 'unverifiedRole'],
        [{ staffRole: emulator.guild.id }, 'The Staff role is @everyone: every member would be staff.', 'staffRole'],
        [{ verifiedRole: bot.name }, `The Verified role "${bot.name}" is managed by an integration or a bot`, 'verifiedRole'],
        [{ verifiedRole: 'Above the bot' }, 'The role "Above the bot" is above or level with the bot\'s highest role', 'verifiedRole'],
        [
          { staffRole: emulator.guild.roleId('Verified') },
          'The role "Verified" is chosen as both the Verified role and the Staff role.',
          'staffRole',
        ],
        [{ alarmPingRole: emulator.guild.id }, 'The role to ping cannot be @everyone: choose a role your staff hold', 'alarmPingRole'],
        [
          { alarmPingRole: '100000000000000077' },
          'The role to ping (id 100000000000000077) does not exist in the Discord server',
          'alarmPingRole',
        ],
      ];
      for (const [body, error, field] of cases) {
        const res = await save(body);
        expect({ status: res.status, field: res.body.field, error: (res.body.error as string).slice(0, error.length) }).toEqual({
          status: 400,
          field,
          error,
        });
      }
      expect(await auditRows()).toEqual([]);
      // Staff may hold Administrator; a plain role is fine as Verified
      expect((await save({ verifiedRole: 'Members', staffRole: 'Admins' })).status).toBe(200);
      // the role to ping: off by default, a role of the server by its id, and off again once cleared
      const staff = emulator.guild.roleId('Staff');
      expect((await request(server.app).get('/api/admin/settings').set('Cookie', cookie)).body.settings.alarmPingRole).toBeNull();
      const pinged = await save({ alarmPingRole: staff });
      expect([pinged.status, pinged.body.settings.alarmPingRole, pinged.body.stored.alarmPingRole]).toEqual([200, staff, staff]);
      const cleared = await save({ alarmPingRole: null });
      expect([cleared.status, cleared.body.settings.alarmPingRole, 'alarmPingRole' in cleared.body.stored]).toEqual([200, null, false]);
    } finally {
      await emulator.close();
    }
  });

  it('refuses a plain staff member with a 403 and changes nothing', async () => {
    const res = await put(mod, { retentionDays: 90 });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Super admin access required');
    expect((await get(owner)).body.settings.retentionDays).toBe(21);
    expect(await auditRows()).toEqual([]);
  });

  it('of two concurrent writes of one setting the later wins, and both are audited with the value they replaced', async () => {
    const [first, second] = await Promise.all([put(owner, { retentionDays: 50 }), put(admin, { retentionDays: 70 })]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const rows = await auditRows();
    expect(rows).toHaveLength(2);
    const [a, b] = rows.map((r) => (r.details.changes as Record<string, { old: number; new: number }>).retentionDays!);
    // the second write saw the first one's value: nothing lost, nothing half-applied
    expect(b!.old).toBe(a!.new);
    expect(rows.map((r) => r.details.version)).toEqual([1, 2]);
    expect((await get(owner)).body.settings.retentionDays).toBe(b!.new);
  });

  it('reaches another process within the cache lifetime, without a restart', async () => {
    let now = 0;
    const other = createSettingsService({
      database: getDatabase(),
      env: kit.ctx.env,
      clock: kit.clock,
      ttlMs: 2_000,
      monotonicNow: () => now,
    });
    expect((await other.current()).vpnCheckFailure).toBe('allow');
    await settingsFor(kit.ctx).update({ type: 'staff', id: '1', name: 'Owner' }, { vpnCheckFailure: 'deny' });
    now += 1_000;
    expect((await other.current()).vpnCheckFailure).toBe('allow');
    now += 1_500;
    expect((await other.current()).vpnCheckFailure).toBe('deny');
  });

  it('ignores a stored value the rules no longer accept and uses the default for it', async () => {
    await getDatabase().query(
      `insert into settings (key, value) values ('owner_settings', '{"version": 3, "values": {"retentionDays": -4, "certainAltAction": "none"}}')`,
    );
    const view = await createSettingsService({ database: getDatabase(), env: kit.ctx.env, clock: kit.clock }).view();
    expect(view.effective.retentionDays).toBe(21);
    expect(view.effective.certainAltAction).toBe('none');
    expect(view.version).toBe(3);
  });
});
