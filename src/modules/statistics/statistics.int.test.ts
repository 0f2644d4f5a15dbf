import { buildAttempt, buildLink, buildMember } from '../../test-support/factories';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { readStatistics } from './statistics.repository';

const NOW = new Date('2026-06-10T15:00:00Z');
const DAY = 24 * 60 * 60 * 1000;

describeEngines('statistics queries', (getDatabase) => {
  beforeEach(async () => {
    await resetDatabase(getDatabase());
  });

  const rows = async <T>(text: string) => (await getDatabase().query<T>(text)).rows;

  it('counts verifications by outcome, alt links by confidence, VPN share and providers, and raid alarms per UTC day inside the period', async () => {
    const { db } = getDatabase();
    const a = await buildMember(db);
    const b = await buildMember(db);
    const c = await buildMember(db);
    const today = new Date('2026-06-10T01:00:00Z');
    const sixDaysAgo = new Date('2026-06-04T23:59:00Z');
    const tooOld = new Date('2026-06-03T23:59:59Z');
    await buildAttempt(db, a.id, { createdAt: today, outcome: 'verified' });
    await buildAttempt(db, b.id, { createdAt: today, outcome: 'limited_access', vpnVerdict: 'vpn', vpnProvider: 'NordVPN' });
    await buildAttempt(db, c.id, { createdAt: sixDaysAgo, outcome: 'limited_access', vpnVerdict: 'vpn', vpnProvider: 'NordVPN' });
    await buildAttempt(db, c.id, { createdAt: sixDaysAgo, outcome: 'denied', vpnVerdict: 'proxy', vpnProvider: 'Mullvad' });
    await buildAttempt(db, c.id, { createdAt: tooOld, outcome: 'verified' });
    await buildLink(db, a.id, b.id, { confidence: 'certain', detectionMethod: 'both', createdAt: today });
    await buildLink(db, a.id, c.id, { confidence: 'possible', detectionMethod: 'ip', createdAt: tooOld });
    // weak evidence is never counted as an alt link
    await buildLink(db, b.id, c.id, { confidence: 'possible', detectionMethod: 'fingerprint', createdAt: today });
    await getDatabase().query(
      `insert into raid_alarms (raised_at, window_minutes, verifications, baseline_x100, young_percent, shared_percent) values ($1, 10, 40, 120, 80, 60), ($2, 10, 40, 120, 80, 60)`,
      [today, new Date(NOW.getTime() - 40 * DAY)],
    );

    const week = await readStatistics(db, NOW, 7);
    expect(week.from).toBe('2026-06-04T00:00:00.000Z');
    expect(week.verificationsPerDay).toEqual([
      { day: '2026-06-04', counts: { limited_access: 1, denied: 1 } },
      { day: '2026-06-10', counts: { verified: 1, limited_access: 1 } },
    ]);
    expect(week.altLinksPerDay).toEqual([{ day: '2026-06-10', counts: { certain: 1 } }]);
    expect(week.vpn).toEqual({
      attempts: 4,
      vpnAttempts: 3,
      providers: [
        { provider: 'NordVPN', attempts: 2 },
        { provider: 'Mullvad', attempts: 1 },
      ],
    });
    expect(week.raidAlarmsPerDay).toEqual([{ day: '2026-06-10', alarms: 1 }]);

    const quarter = await readStatistics(db, NOW, 90);
    expect(quarter.verificationsPerDay).toHaveLength(3);
    expect(quarter.altLinksPerDay).toEqual([{ day: '2026-06-10', counts: { certain: 1 } }]);
    expect(quarter.raidAlarmsPerDay).toHaveLength(2);
  });

  it('counts a day that is over once, into statistics_days: later reads take it from there, also after retention deleted the attempts', async () => {
    const { db } = getDatabase();
    const a = await buildMember(db);
    await buildAttempt(db, a.id, { createdAt: new Date('2026-06-08T10:00:00Z'), outcome: 'verified' });
    await buildAttempt(db, a.id, {
      createdAt: new Date('2026-06-08T11:00:00Z'),
      outcome: 'limited_access',
      vpnVerdict: 'vpn',
      vpnProvider: 'NordVPN',
    });
    await buildAttempt(db, a.id, { createdAt: new Date('2026-06-10T09:00:00Z'), outcome: 'verified' });
    const first = await readStatistics(db, NOW, 7);
    // the days before today are written (a marker for each, counts where there were any); today is not
    expect(
      await rows(`select to_char(day, 'YYYY-MM-DD') as day, series, key, n from statistics_days where series <> 'day' order by 1, 2, 3`),
    ).toEqual([
      { day: '2026-06-08', series: 'outcome', key: 'limited_access', n: 1 },
      { day: '2026-06-08', series: 'outcome', key: 'verified', n: 1 },
      { day: '2026-06-08', series: 'vpn', key: 'attempts', n: 2 },
      { day: '2026-06-08', series: 'vpn', key: 'vpn', n: 1 },
      { day: '2026-06-08', series: 'vpn_provider', key: 'NordVPN', n: 1 },
    ]);
    expect(await rows(`select count(*)::int as n from statistics_days where series = 'day'`)).toEqual([{ n: 6 }]);
    // today's hours that are over (15 minutes after, so up to 14:00 at 15:00) are written too; the last is counted live
    expect(
      await rows(`select to_char(hour at time zone 'UTC', 'HH24') as hour, series, key, n from statistics_hours where series = 'outcome'`),
    ).toEqual([{ hour: '09', series: 'outcome', key: 'verified', n: 1 }]);
    expect(await rows(`select count(*)::int as n from statistics_hours where series = 'hour'`)).toEqual([{ n: 14 }]);

    // retention deletes the attempts: the stored days keep their counts, today is counted live
    await getDatabase().query(`delete from verification_attempts where created_at < '2026-06-10'`);
    await buildAttempt(db, a.id, { createdAt: new Date('2026-06-10T14:50:00Z'), outcome: 'denied' });
    const second = await readStatistics(db, NOW, 7);
    expect(second.verificationsPerDay).toEqual([
      { day: '2026-06-08', counts: { verified: 1, limited_access: 1 } },
      { day: '2026-06-10', counts: { verified: 1, denied: 1 } },
    ]);
    expect(second.vpn).toEqual({ attempts: 4, vpnAttempts: 1, providers: [{ provider: 'NordVPN', attempts: 1 }] });
    expect(first.verificationsPerDay[0]).toEqual(second.verificationsPerDay[0]);
    // a longer period writes only the days it adds
    await readStatistics(db, NOW, 30);
    expect(await rows(`select count(*)::int as n from statistics_days where series = 'day'`)).toEqual([{ n: 29 }]);
  });

  it('counts appeals submitted on the day they were filed and approved / rejected on the day they were decided, and keeps the counts when the members go', async () => {
    const { db } = getDatabase();
    const a = await buildMember(db);
    const b = await buildMember(db);
    const c = await buildMember(db);
    const appeal = (memberId: number, createdAt: string, status: string, decidedAt: string | null) =>
      getDatabase().query(
        `insert into appeals (member_id, message, status, standing, created_at, decided_at) values ($1, 'please', $2, 'certain_alt', $3, $4)`,
        [memberId, status, createdAt, decidedAt],
      );
    // filed on a stored day, decided in a stored hour of today
    await appeal(a.id, '2026-06-08T10:00:00Z', 'approved', '2026-06-10T09:00:00Z');
    // filed and rejected on the same stored day
    await appeal(b.id, '2026-06-09T10:00:00Z', 'rejected', '2026-06-09T11:00:00Z');
    // filed in the live hour, still open
    await appeal(c.id, '2026-06-10T14:50:00Z', 'open', null);
    // decided before the period: neither count is in it
    await appeal(c.id, '2026-05-01T10:00:00Z', 'rejected', '2026-05-02T10:00:00Z');
    const expected = [
      { day: '2026-06-08', counts: { submitted: 1 } },
      { day: '2026-06-09', counts: { submitted: 1, rejected: 1 } },
      { day: '2026-06-10', counts: { approved: 1, submitted: 1 } },
    ];
    // earlier days from statistics_days, today's hours up to 14:00 from statistics_hours, the open appeal live
    const stored = await readStatistics(db, NOW, 7);
    expect(stored.appealsPerDay).toEqual(expected);
    expect(
      await rows(`select to_char(day, 'YYYY-MM-DD') as day, key, n from statistics_days where series = 'appeal' order by 1, 2`),
    ).toEqual([
      { day: '2026-06-08', key: 'submitted', n: 1 },
      { day: '2026-06-09', key: 'rejected', n: 1 },
      { day: '2026-06-09', key: 'submitted', n: 1 },
    ]);
    expect(
      await rows(`select to_char(hour at time zone 'UTC', 'HH24') as hour, key, n from statistics_hours where series = 'appeal'`),
    ).toEqual([{ hour: '09', key: 'approved', n: 1 }]);

    // the next day, today is counted whole into statistics_days: the same numbers as the hours and the live hour gave
    expect((await readStatistics(db, new Date('2026-06-11T01:00:00Z'), 7)).appealsPerDay).toEqual(expected);
    expect(await rows(`select key, n from statistics_days where day = '2026-06-10' and series = 'appeal' order by 1`)).toEqual([
      { key: 'approved', n: 1 },
      { key: 'submitted', n: 1 },
    ]);
    // appeals go with their members; the stored counts stay
    await getDatabase().query(`delete from members`);
    expect((await readStatistics(db, new Date('2026-06-11T01:00:00Z'), 7)).appealsPerDay).toEqual(expected);
  });

  it('counts a verification that ended with a certain alt as denied_alt and a held one as pending, under no other key; stored and live agree', async () => {
    const { db } = getDatabase();
    const a = await buildMember(db);
    const at = (iso: string) => new Date(iso);
    // the same mix on a stored day (06-09), in a stored hour of today (09:00) and in the live hour (14:50)
    for (const time of ['2026-06-09T10:00:00Z', '2026-06-10T09:00:00Z', '2026-06-10T14:50:00Z']) {
      await buildAttempt(db, a.id, { createdAt: at(time), outcome: 'verified' });
      await buildAttempt(db, a.id, { createdAt: at(time), outcome: 'verified', endedAs: 'denied_alt' });
      await buildAttempt(db, a.id, { createdAt: at(time), outcome: 'limited_access', endedAs: 'denied_alt' });
      await buildAttempt(db, a.id, { createdAt: at(time), outcome: 'verified', endedAs: 'pending' });
      await buildAttempt(db, a.id, { createdAt: at(time), outcome: 'limited_access', endedAs: 'pending' });
    }
    const mix = { verified: 1, denied_alt: 2, pending: 2 };
    const week = await readStatistics(db, NOW, 7);
    expect(week.verificationsPerDay).toEqual([
      { day: '2026-06-09', counts: mix },
      { day: '2026-06-10', counts: { verified: 2, denied_alt: 4, pending: 4 } },
    ]);
    // every attempt is still one VPN-share attempt
    expect(week.vpn.attempts).toBe(15);
    // the stored day keeps no zero for limited_access (all of its attempts ended otherwise)
    expect(await rows(`select key, n from statistics_days where day = '2026-06-09' and series = 'outcome' order by 1`)).toEqual([
      { key: 'denied_alt', n: 2 },
      { key: 'pending', n: 2 },
      { key: 'verified', n: 1 },
    ]);
    expect(await rows(`select key, n from statistics_hours where series = 'outcome' order by 1`)).toEqual([
      { key: 'denied_alt', n: 2 },
      { key: 'pending', n: 2 },
      { key: 'verified', n: 1 },
    ]);
    // the next day, today counted whole into statistics_days gives what its hours and live hour gave
    const later = await readStatistics(db, new Date('2026-06-11T01:00:00Z'), 7);
    expect(later.verificationsPerDay).toEqual(week.verificationsPerDay);
  });

  it('keeps the day before live for 15 minutes after midnight, for verifications that commit late', async () => {
    const { db } = getDatabase();
    const a = await buildMember(db);
    const justAfterMidnight = new Date('2026-06-10T00:10:00Z');
    await readStatistics(db, justAfterMidnight, 7);
    // committed at 00:11 with its start time of 23:59:58 the day before
    await buildAttempt(db, a.id, { createdAt: new Date('2026-06-09T23:59:58Z'), outcome: 'verified' });
    expect((await readStatistics(db, new Date('2026-06-10T00:16:00Z'), 7)).verificationsPerDay).toEqual([
      { day: '2026-06-09', counts: { verified: 1 } },
    ]);
    expect(await rows(`select n from statistics_days where day = '2026-06-09' and series = 'outcome'`)).toEqual([{ n: 1 }]);
  });

  it('writes each day once when several readers fill the same days at once', async () => {
    const { db } = getDatabase();
    const a = await buildMember(db);
    await buildAttempt(db, a.id, { createdAt: new Date('2026-06-05T10:00:00Z'), outcome: 'verified' });
    const reads = await Promise.all([readStatistics(db, NOW, 90), readStatistics(db, NOW, 30), readStatistics(db, NOW, 7)]);
    for (const read of reads) expect(read.verificationsPerDay).toEqual([{ day: '2026-06-05', counts: { verified: 1 } }]);
    expect(await rows(`select count(*)::int as n from statistics_days where series = 'day'`)).toEqual([{ n: 89 }]);
  });

  it('answers with empty series on an empty database', async () => {
    expect(await readStatistics(getDatabase().db, NOW, 30)).toEqual({
      periodDays: 30,
      from: '2026-05-12T00:00:00.000Z',
      verificationsPerDay: [],
      altLinksPerDay: [],
      vpn: { attempts: 0, vpnAttempts: 0, providers: [] },
      appealsPerDay: [],
      raidAlarmsPerDay: [],
    });
  });
});
