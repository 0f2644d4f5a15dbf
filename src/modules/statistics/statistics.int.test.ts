import { buildAttempt, buildLink, buildMember } from '../../test-support/factories';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { readStatistics } from './statistics.repository';

const NOW = new Date('2026-06-10T15:00:00Z');
const DAY = 24 * 60 * 60 * 1000;

describeEngines('statistics queries', (getDatabase) => {
  beforeEach(async () => {
    await resetDatabase(getDatabase());
  });

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
    expect(week.vpn).toEqual({ attempts: 4, vpnAttempts: 3, providers: [{ provider: 'NordVPN', attempts: 2 }, { provider: 'Mullvad', attempts: 1 }] });
    expect(week.raidAlarmsPerDay).toEqual([{ day: '2026-06-10', alarms: 1 }]);

    const quarter = await readStatistics(db, NOW, 90);
    expect(quarter.verificationsPerDay).toHaveLength(3);
    expect(quarter.altLinksPerDay).toHaveLength(2);
    expect(quarter.raidAlarmsPerDay).toHaveLength(2);
  });

  it('answers with empty series on an empty database', async () => {
    expect(await readStatistics(getDatabase().db, NOW, 30)).toEqual({
      periodDays: 30,
      from: '2026-05-12T00:00:00.000Z',
      verificationsPerDay: [],
      altLinksPerDay: [],
      vpn: { attempts: 0, vpnAttempts: 0, providers: [] },
      raidAlarmsPerDay: [],
    });
  });
});
