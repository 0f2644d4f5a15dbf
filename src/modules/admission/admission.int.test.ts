import { createManualClock } from '../../clock';
import { createOutboxRepository } from '../outbox';
import { parseEnv } from '../../env';
import { buildAttempt, buildMember, nextSnowflake } from '../../test-support/factories';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { defaultSettings, type OwnerSettings } from '../settings';
import { createAdmissionService } from './admission.service';
import { releaseHeldQuery, setMemberGate, type AdmissionStateRow } from './admission.repository';
import { explainGenericPlan, mostRowsInPlan } from '../../test-support/generic-plan';
import { selectRows } from '../../db/client';
import { decideAgeGate } from './admission-rules';

const DAY = 24 * 60 * 60 * 1000;
const NOW = new Date('2026-06-01T12:00:00Z');
const STAFF = { type: 'staff' as const, id: '1', name: 'Owner' };

describe('account-age gate (rule)', () => {
  const policy = { accountAgeMinDays: 7, accountAgeAction: 'review' as const };
  it('holds an account one second short of the minimum and passes it at exactly the minimum', () => {
    expect(decideAgeGate(nextSnowflake(new Date(NOW.getTime() - 7 * DAY + 1000)), NOW, policy)).toEqual({
      action: 'review',
      rules: ['account_age'],
      reason: 'Discord account is 6 days old; this server requires 7',
    });
    expect(decideAgeGate(nextSnowflake(new Date(NOW.getTime() - 7 * DAY)), NOW, policy)).toBeNull();
  });
  it('is off at 0 days', () => {
    expect(decideAgeGate(nextSnowflake(NOW), NOW, { ...policy, accountAgeMinDays: 0 })).toBeNull();
  });
});

describeEngines('admission: lockdown, account age and the raid alarm', (getDatabase) => {
  let settings: OwnerSettings;
  let clock: ReturnType<typeof createManualClock>;
  let alarms: string[][];
  let service: ReturnType<typeof createAdmissionService>;
  let outbox: ReturnType<typeof createOutboxRepository>;

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    settings = defaultSettings(parseEnv({ NODE_ENV: 'test' }));
    clock = createManualClock(NOW);
    alarms = [];
    outbox = createOutboxRepository({ sealKey: Buffer.alloc(32, 7), now: () => clock.now() });
    service = createAdmissionService({
      database: getDatabase(),
      clock,
      settings: { snapshot: () => settings },
      outbox,
      onRaidAlarm: (reasons) => alarms.push(reasons),
    });
  });

  const rows = async <T>(text: string) => (await getDatabase().query<T>(text)).rows;

  /**
   * One verification as the flow records it: the member, the attempt, then admission, in one
   * transaction. `readFirst`: as the website's flow does it, the admission read is made before
   * the attempt is written (in the sign-in's statement, whose snapshot cannot see it) and the
   * attempt is handed over; the gate is written afterwards.
   */
  async function verify(at: Date, opts: { accountCreated?: Date; fingerprintHash?: string; ipHash?: string; readFirst?: boolean } = {}) {
    clock.set(at);
    const { db } = getDatabase();
    return db.transaction(async (tx) => {
      const discordId = nextSnowflake(opts.accountCreated ?? new Date(at.getTime() - 400 * DAY));
      const fingerprintHash = opts.fingerprintHash ?? null;
      const ipHash = opts.ipHash ?? null;
      const member = await buildMember(tx, { discordId, verifiedAt: at });
      const read = opts.readFirst ? service.readQuery(at) : null;
      const [row] = read
        ? await selectRows<AdmissionStateRow>(tx, read.query({ memberId: member.id, discordId, fingerprintHash, ipHash }))
        : [];
      await buildAttempt(tx, member.id, { createdAt: at, fingerprintHash, ipHash });
      if (!read) return { member, gate: await service.admit(tx, { member, now: at }) };
      const { gate, logLine } = await service.gate(tx, { member, now: at, read: read.read(row) });
      await setMemberGate(tx, member.id, gate);
      if (logLine) await outbox.enqueue(tx, logLine);
      return { member, gate };
    });
  }

  it('age gate at its boundary: a day short is held for review with the reason stored, the exact minimum passes', async () => {
    settings = { ...settings, accountAgeMinDays: 3, accountAgeAction: 'review' };
    const young = await verify(NOW, { accountCreated: new Date(NOW.getTime() - 3 * DAY + 60_000) });
    const exact = await verify(NOW, { accountCreated: new Date(NOW.getTime() - 3 * DAY) });
    expect(young.gate?.action).toBe('review');
    expect(exact.gate).toBeNull();
    expect(await rows(`select gate_action, gate_reason from members order by id`)).toEqual([
      { gate_action: 'review', gate_reason: 'Discord account is 2 days old; this server requires 3' },
      { gate_action: null, gate_reason: null },
    ]);
    settings = { ...settings, accountAgeAction: 'limited' };
    expect((await verify(NOW, { accountCreated: new Date(NOW.getTime() - DAY) })).gate?.action).toBe('limited');
  });

  it("writes a member's gate only when it changes (an unchanged gate leaves the row version as it was)", async () => {
    const { db } = getDatabase();
    const member = await buildMember(db);
    const version = async () =>
      (
        await rows<{ xmin: string; gate_action: string | null; gate_reason: string | null }>(
          `select xmin::text, gate_action, gate_reason from members where id = ${member.id}`,
        )
      )[0]!;
    const before = await version();
    await setMemberGate(db, member.id, null);
    expect(await version()).toEqual(before);
    const held = { action: 'review' as const, rules: ['lockdown' as const], reason: 'The server is in lockdown' };
    await setMemberGate(db, member.id, held);
    const gated = await version();
    expect(gated).toMatchObject({ gate_action: 'review', gate_reason: 'The server is in lockdown' });
    expect(gated.xmin).not.toBe(before.xmin);
    await setMemberGate(db, member.id, held);
    expect(await version()).toEqual(gated);
    await setMemberGate(db, member.id, { ...held, reason: 'The server is in lockdown (raid)' });
    expect(await version()).toMatchObject({ gate_action: 'review', gate_reason: 'The server is in lockdown (raid)' });
    await setMemberGate(db, member.id, null);
    expect(await version()).toMatchObject({ gate_action: null, gate_reason: null });
  });

  it('lockdown: new verifications are held, earlier members untouched; switching off keeps or releases the held ones; all audited', async () => {
    settings = { ...settings, lockdownAction: 'review' };
    const before = await verify(new Date(NOW.getTime() - DAY));
    expect(before.gate).toBeNull();

    const on = await service.setLockdown(STAFF, { on: true, reason: 'spam wave' });
    expect(on.lockdown).toMatchObject({ on: true, reason: 'spam wave', by: 'Owner' });
    const held1 = await verify(NOW);
    await verify(new Date(NOW.getTime() + 60_000));
    expect(held1.gate).toEqual({ action: 'review', rules: ['lockdown'], reason: 'The server is in lockdown (spam wave)' });
    expect((await service.status()).held).toBe(2);

    // off, keeping the held members
    const kept = await service.setLockdown(STAFF, { on: false, release: false });
    expect(kept).toMatchObject({ lockdown: { on: false }, released: 0 });
    expect((await service.status()).held).toBe(2);
    expect((await verify(new Date(NOW.getTime() + 120_000))).gate).toBeNull();

    // released one by one, then the rest in bulk
    expect(await service.releaseHeld(STAFF, [held1.member.discordId])).toEqual([held1.member.discordId]);
    await service.setLockdown(STAFF, { on: true, reason: null });
    const released = await service.setLockdown(STAFF, { on: false, release: true });
    expect(released.released).toBe(1);
    expect((await service.status()).held).toBe(0);
    expect(await rows(`select gate_action from members where discord_id = '${before.member.discordId}'`)).toEqual([{ gate_action: null }]);
    expect((await rows<{ action: string }>(`select action from audit_log order by id`)).map((r) => r.action)).toEqual([
      'lockdown.on',
      'lockdown.off',
      'admission.released',
      'lockdown.on',
      'lockdown.off',
      'admission.released',
    ]);
    expect(
      (await rows<{ text: string }>(`select payload->>'text' as text from discord_outbox where kind = 'log_message' order by id`)).map(
        (r) => r.text,
      ),
    ).toContain('🔒 Owner switched lockdown on (spam wave): new verifications are limited or held until it ends.');
  });

  it('a release gives each ready member the role the button would give, through the outbox in the same transaction; the others wait for the button', async () => {
    const { db } = getDatabase();
    const held = { gateAction: 'review' as const, gateReason: 'The server is in lockdown' };
    const ready = await buildMember(db, held);
    const vpn = await buildMember(db, { ...held, status: 'limited_access' });
    const noRules = await buildMember(db, { ...held, rulesConfirmed: false });
    const certainAlt = await buildMember(db, { ...held, manualAltStatus: 'certain_alt' });
    const notHeld = await buildMember(db);

    expect(await service.releaseHeld(STAFF)).toEqual([ready.discordId, vpn.discordId, noRules.discordId, certainAlt.discordId]);
    expect(await rows(`select discord_id, kind, payload from discord_outbox where kind = 'update_roles' order by id`)).toEqual([
      {
        discord_id: ready.discordId,
        kind: 'update_roles',
        payload: {
          add: ['verified'],
          remove: ['unverified', 'limited'],
          reason: 'Gatekeeper: released from review by staff (Owner), verified',
        },
      },
      {
        discord_id: vpn.discordId,
        kind: 'update_roles',
        payload: { add: ['limited'], remove: ['unverified'], reason: 'Gatekeeper: released from review by staff (Owner), Limited Access' },
      },
    ]);
    expect(await rows(`select discord_id, guild_access, gate_action from members order by id`)).toEqual([
      { discord_id: ready.discordId, guild_access: 'verified', gate_action: null },
      { discord_id: vpn.discordId, guild_access: 'limited', gate_action: null },
      { discord_id: noRules.discordId, guild_access: 'pending', gate_action: null },
      { discord_id: certainAlt.discordId, guild_access: 'pending', gate_action: null },
      { discord_id: notHeld.discordId, guild_access: 'pending', gate_action: null },
    ]);
    expect(await rows(`select payload->>'text' as text from discord_outbox where kind = 'log_message'`)).toEqual([
      {
        text: '🔓 Owner released 4 members held for review: 1 got the Verified role, 1 got Limited Access, 2 complete verification with the button.',
      },
    ]);
    expect(await rows(`select action, details from audit_log`)).toEqual([
      {
        action: 'admission.released',
        details: {
          count: 4,
          discordIds: [ready.discordId, vpn.discordId, noRules.discordId, certainAlt.discordId],
          verified: 1,
          limited: 1,
          waitingForButton: 2,
        },
      },
    ]);
    // nothing left to release: no outbox row, no audit row
    expect(await service.releaseHeld(STAFF)).toEqual([]);
    expect(await rows(`select count(*)::int as n from audit_log`)).toEqual([{ n: 1 }]);
  });

  it('a release that fails part-way leaves everyone held and queues nothing', async () => {
    const { db } = getDatabase();
    const member = await buildMember(db, { gateAction: 'review', gateReason: 'held' });
    const failing = createAdmissionService({
      database: getDatabase(),
      clock,
      settings: { snapshot: () => settings },
      outbox: {
        enqueue: () => Promise.reject(new Error('outbox down')),
        enqueueQuery: () => {
          throw new Error('outbox down');
        },
      },
    });
    await expect(failing.releaseHeld(STAFF)).rejects.toThrow('outbox down');
    expect(await rows(`select gate_action, guild_access from members where id = ${member.id}`)).toEqual([
      { gate_action: 'review', guild_access: 'pending' },
    ]);
    expect(await rows(`select count(*)::int as n from discord_outbox`)).toEqual([{ n: 0 }]);
  });

  it('switching lockdown off with release grants 2,500 held members their role: one outbox item each, in one transaction', async () => {
    const n = 2500;
    await getDatabase().query(
      `insert into members (discord_id, username, rules_confirmed, gate_action, gate_reason)
       select (100000000000000000 + g)::text, 'held' || g, true, 'review', 'The server is in lockdown' from generate_series(1, ${n}) as g`,
    );
    await service.setLockdown(STAFF, { on: true, reason: 'raid' });
    const off = await service.setLockdown(STAFF, { on: false, release: true });
    expect(off.released).toBe(n);
    expect(
      await rows(`select count(*)::int as n, count(distinct discord_id)::int as members from discord_outbox where kind = 'update_roles'`),
    ).toEqual([{ n, members: n }]);
    expect(await rows(`select guild_access, count(*)::int as n from members group by guild_access`)).toEqual([
      { guild_access: 'verified', n },
    ]);
    expect((await service.status()).held).toBe(0);
    const [audit] = await rows<{ details: { count: number; verified: number } }>(
      `select details from audit_log where action = 'admission.released'`,
    );
    expect(audit?.details).toMatchObject({ count: n, verified: n });
  });

  it('the release reads the held members alone, not every member, with the one plan the embedded engine keeps for it', async () => {
    await getDatabase().query(
      `insert into members (discord_id, username, gate_action, gate_reason)
       select (100000000000000000 + g)::text, 'member' || g, case when g <= 3 then 'review' end, case when g <= 3 then 'raid' end from generate_series(1, 3000) as g`,
    );
    await getDatabase().exec('vacuum analyze members');
    const plan = await explainGenericPlan(getDatabase(), releaseHeldQuery(getDatabase().db, NOW));
    expect(plan).toMatch(/Update on members .*rows=3 /);
    expect(plan).toMatch(/members_held_idx/);
    expect(mostRowsInPlan(plan)).toBeLessThan(100);
  });

  it.each([
    ['admission reads after the attempt is written', false],
    ['the read made before, in the sign-in statement', true],
  ])(
    'raises the alarm on a burst of 30 verifications in 5 minutes, once per window, with a log line, an audit row and the metric; auto-lockdown holds the rest (%s)',
    async (_how, readFirst) => {
      settings = { ...settings, autoLockdown: true, lockdownAction: 'limited' };
      for (let i = 0; i < 30; i++)
        await verify(new Date(NOW.getTime() + i * 10_000), {
          accountCreated: new Date(NOW.getTime() - 2 * DAY),
          fingerprintHash: `${i % 3}`.repeat(32),
          readFirst,
        });
      expect(alarms).toEqual([['rate', 'young_accounts', 'shared_evidence']]);
      const [alarm] = await rows<Record<string, unknown>>(
        `select verifications, baseline_x100, young_percent, shared_percent, lockdown_started from raid_alarms`,
      );
      expect(alarm).toEqual({ verifications: 10, baseline_x100: 0, young_percent: 100, shared_percent: 100, lockdown_started: true });
      expect(await rows(`select count(*)::int as n from raid_alarms`)).toEqual([{ n: 1 }]);
      expect((await rows<{ action: string }>(`select action from audit_log order by id`)).map((r) => r.action)).toEqual([
        'raid.alarm',
        'lockdown.on',
      ]);
      expect(
        (await rows<{ text: string }>(`select payload->>'text' as text from discord_outbox where payload->>'text' like '🚨%'`))[0]?.text,
      ).toBe(
        '🚨 Raid alarm: 10 verifications in 10 min (usual 0.0), 100% young accounts, 100% sharing a device or address. Lockdown switched on automatically.',
      );
      // from the alarm on, newcomers get Limited Access
      expect(await rows(`select count(*)::int as n from members where gate_action = 'limited'`)).toEqual([{ n: 21 }]);
      expect((await service.status()).lockdown.on).toBe(true);
    },
  );

  it('raises no alarm for the same 30 verifications spread over a day', async () => {
    settings = { ...settings, autoLockdown: true };
    for (let i = 0; i < 30; i++)
      await verify(new Date(NOW.getTime() + i * 48 * 60_000), {
        accountCreated: new Date(NOW.getTime() - 2 * DAY),
        fingerprintHash: `${i % 3}`.repeat(32),
      });
    expect(alarms).toEqual([]);
    expect(await rows(`select count(*)::int as n from raid_alarms`)).toEqual([{ n: 0 }]);
    expect(await rows(`select count(*)::int as n from members where gate_action is not null`)).toEqual([{ n: 0 }]);
  });

  it('compares the rate with the server’s own previous day: a busy server at its usual pace raises nothing', async () => {
    settings = { ...settings, raidYoungAccountPercent: 100, raidSharedEvidencePercent: 100 };
    // a day of 12 verifications per 10 minutes, then one more window at the same pace
    const member = await buildMember(getDatabase().db);
    const start = NOW.getTime() - DAY;
    await getDatabase().query(
      `insert into verification_attempts (member_id, outcome, created_at) select $1, 'verified', to_timestamp(($2::float8 + n * 50000) / 1000) from generate_series(0, 1727) as n`,
      [member.id, start],
    );
    for (let k = 0; k < 12; k++) await verify(new Date(NOW.getTime() + k * 45_000));
    expect(alarms).toEqual([]);
  });

  it('counts the day before the window at most once a minute: the verifications of the minute after use that count', async () => {
    settings = { ...settings, raidYoungAccountPercent: 100, raidSharedEvidencePercent: 100 };
    const { db } = getDatabase();
    const member = await buildMember(db);
    // a day of verifications before the window, and enough in the window for the day to matter
    await getDatabase().query(
      `insert into verification_attempts (member_id, outcome, created_at) select $1, 'verified', to_timestamp(($2::float8 + n * 50000) / 1000) from generate_series(0, 1727) as n`,
      [member.id, NOW.getTime() - DAY],
    );
    for (let i = 0; i < settings.raidMinVerifications; i++)
      await buildAttempt(db, member.id, { createdAt: new Date(NOW.getTime() - i * 1000) });
    const dayBefore = async (at: Date) => {
      const from = at.getTime() - settings.raidWindowMinutes * 60_000;
      const [stored] = await rows<{ n: number }>(
        `select count(*)::int as n from verification_attempts where created_at > '${new Date(from - DAY).toISOString()}' and created_at <= '${new Date(from).toISOString()}'`,
      );
      const read = service.readQuery(at);
      const [row] = await selectRows<AdmissionStateRow>(
        db,
        read.query({ memberId: member.id, discordId: member.discordId, fingerprintHash: null, ipHash: null }),
      );
      const admissionRead = read.read(row);
      await service.gate(db, { member, now: at, read: admissionRead });
      return { counted: admissionRead.countedPreviousDay, used: Number(row?.previous_day), stored: stored!.n };
    };
    const first = await dayBefore(NOW);
    expect(first).toEqual({ counted: true, used: first.stored, stored: first.stored });
    expect(first.stored).toBeGreaterThan(1000);
    // 100 more in the day before: the next minute's verifications still use the count made at NOW
    await getDatabase().query(
      `insert into verification_attempts (member_id, outcome, created_at) select $1, 'verified', to_timestamp(($2::float8 + n * 1000) / 1000) from generate_series(1, 100) as n`,
      [member.id, NOW.getTime() - DAY / 2],
    );
    expect(await dayBefore(new Date(NOW.getTime() + 30_000))).toMatchObject({ counted: false, used: first.stored });
    expect(await dayBefore(new Date(NOW.getTime() + 59_999))).toMatchObject({ counted: false, used: first.stored });
    // a minute on, it is counted again (and kept from then)
    const later = await dayBefore(new Date(NOW.getTime() + 60_000));
    expect(later).toEqual({ counted: true, used: later.stored, stored: later.stored });
    expect(later.stored).toBeGreaterThanOrEqual(first.stored + 100);
    expect(await dayBefore(new Date(NOW.getTime() + 61_000))).toMatchObject({ counted: false, used: later.stored });
    // a clock that went back counts again
    expect(await dayBefore(NOW)).toEqual({ counted: true, used: first.stored + 100, stored: first.stored + 100 });
  });
});
