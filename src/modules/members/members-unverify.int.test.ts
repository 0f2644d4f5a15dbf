import crypto from 'node:crypto';
import { createManualClock } from '../../clock';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildMember } from '../../test-support/factories';
import { createOutboxRepository, type OutboxPort } from '../outbox';
import type { DiscordStaff } from './member-actor';
import { createMembersService, NOT_VERIFIED } from './members.service';

const DISCORD_STAFF: DiscordStaff = { kind: 'discord', discordId: '500000000000000099', username: 'helper' };

describeEngines('members service: unverify and Discord actors', (getDatabase) => {
  const clock = createManualClock(new Date('2026-03-01T12:00:00Z'));
  const outbox = createOutboxRepository({ sealKey: crypto.randomBytes(32), now: () => clock.now() });
  const service = () => createMembersService({ database: getDatabase(), clock, outbox });
  const query = async <T extends Record<string, unknown>>(text: string, params: unknown[] = []) =>
    (await getDatabase().query<T>(text, params)).rows;

  beforeEach(async () => resetDatabase(getDatabase()));

  it.each([
    ['verified', { guildAccess: 'verified' as const, rulesConfirmed: true }],
    ['limited', { guildAccess: 'limited' as const, status: 'limited_access' as const, rulesConfirmed: true }],
    ['rules accepted but no roles yet', { guildAccess: 'pending' as const, rulesConfirmed: true }],
  ])('takes verification away from a member who is %s: roles through the outbox, rules to accept again', async (_state, overrides) => {
    await buildMember(getDatabase().db, { discordId: '500000000000000001', rulesConfirmedAt: new Date(), ...overrides });
    await service().unverify(DISCORD_STAFF, '500000000000000001');

    expect(await query('select guild_access, rules_confirmed, rules_confirmed_at from members')).toEqual([
      { guild_access: 'pending', rules_confirmed: false, rules_confirmed_at: null },
    ]);
    const actions = await query<{ kind: string; add: string[] | null; remove: string[] | null }>(
      "select kind, payload->'add' as add, payload->'remove' as remove from discord_outbox order by id",
    );
    expect(actions).toEqual([
      { kind: 'update_roles', add: ['unverified'], remove: ['verified', 'limited'] },
      { kind: 'log_message', add: null, remove: null },
    ]);
    expect(await query('select actor_type, actor_id, actor_name, action, target_id, details from audit_log')).toEqual([
      {
        actor_type: 'discord',
        actor_id: DISCORD_STAFF.discordId,
        actor_name: 'helper',
        action: 'member.unverify',
        target_id: '500000000000000001',
        details: { from: overrides.guildAccess, rulesConfirmed: true },
      },
    ]);
  });

  it('refuses (409) when there is nothing to take away, and 404 without a record', async () => {
    await buildMember(getDatabase().db, { discordId: '500000000000000002', guildAccess: 'pending', rulesConfirmed: false });
    await expect(service().unverify(DISCORD_STAFF, '500000000000000002')).rejects.toMatchObject({ status: 409, message: NOT_VERIFIED });
    await expect(service().unverify(DISCORD_STAFF, '500000000000000003')).rejects.toMatchObject({ status: 404 });
    expect(await query('select 1 from discord_outbox')).toHaveLength(0);
    expect(await query('select 1 from audit_log')).toHaveLength(0);
  });

  it('changes nothing when the outbox fails', async () => {
    await buildMember(getDatabase().db, { discordId: '500000000000000004', guildAccess: 'verified' });
    const failing: OutboxPort = {
      enqueue: async () => {
        throw new Error('outbox unavailable');
      },
      enqueueQuery: () => {
        throw new Error('outbox unavailable');
      },
    };
    await expect(
      createMembersService({ database: getDatabase(), clock, outbox: failing }).unverify(DISCORD_STAFF, '500000000000000004'),
    ).rejects.toThrow('outbox unavailable');
    expect(await query('select guild_access from members')).toEqual([{ guild_access: 'verified' }]);
    expect(await query('select 1 from audit_log')).toHaveLength(0);
  });

  it('records a note by a Discord staff member without a staff account, and a dashboard note with one', async () => {
    await buildMember(getDatabase().db, { discordId: '500000000000000005' });
    await service().addNote(DISCORD_STAFF, '500000000000000005', 'from Discord');
    // a dashboard account can carry a linked Discord ID: it is still a dashboard actor
    await getDatabase().query("insert into staff (username, password_hash) values ('Mod', 'x')");
    await service().addNote({ id: 1, username: 'Mod', discordId: '500000000000000098' }, '500000000000000005', 'from the dashboard');
    expect(await query('select note, author_staff_id::int as author_staff_id, author_name from admin_notes order by id')).toEqual([
      { note: 'from Discord', author_staff_id: null, author_name: 'helper (Discord)' },
      { note: 'from the dashboard', author_staff_id: 1, author_name: 'Mod' },
    ]);
    expect(await query('select actor_type, actor_id from audit_log order by id')).toEqual([
      { actor_type: 'discord', actor_id: DISCORD_STAFF.discordId },
      { actor_type: 'staff', actor_id: '1' },
    ]);
  });
});
