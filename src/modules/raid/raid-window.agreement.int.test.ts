import { sql, type SQL } from 'drizzle-orm';
import { selectRows } from '../../db/client';
import { buildAttempt, buildMember, nextSnowflake } from '../../test-support/factories';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { accountAgeDays } from '../admission';
import type { RaidWindow } from './raid-rules';
import { raidWindowFrom, raidWindowQuery, type RaidWindowRow, type WindowAttempt } from './raid.repository';

/**
 * The raid window is counted by the database (raidWindowQuery), so that a verification
 * during a raid does not fetch the whole window. This checks the SQL against the rule as
 * the raid alarm states it, written here in TypeScript, on a generated window: members
 * of every age around the young-account limit, device profile and address hashes drawn
 * from small pools (so some are shared, some by one member's several attempts only), some
 * missing; attempts before and after the window; and the attempt a sign-in writes in the
 * same statement counted in.
 */

const DAY = 86_400_000;
const NOW = new Date('2026-06-01T12:00:00Z');
const WINDOW_MINUTES = 10;
const YOUNG_DAYS = 7;

function rule(attempts: WindowAttempt[], now: Date, youngDays: number, previousDay: number): RaidWindow {
  const carriers = new Map<string, Set<string>>();
  for (const a of attempts) {
    for (const key of [a.fingerprintHash && `f:${a.fingerprintHash}`, a.ipHash && `i:${a.ipHash}`]) {
      if (key) carriers.set(key, (carriers.get(key) ?? new Set()).add(a.discordId));
    }
  }
  const sharedBy = (key: string | null) => key !== null && (carriers.get(key)?.size ?? 0) > 1;
  return {
    verifications: attempts.length,
    previousDay,
    young: attempts.filter((a) => accountAgeDays(a.discordId, now) < youngDays).length,
    shared: attempts.filter((a) => sharedBy(a.fingerprintHash && `f:${a.fingerprintHash}`) || sharedBy(a.ipHash && `i:${a.ipHash}`)).length,
  };
}

/** A small deterministic generator (the same window on every run and engine). */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describeEngines('raid window: the database counts as the rule says', (getDatabase) => {
  it('on a generated window, with and without the attempt the statement writes', async () => {
    await resetDatabase(getDatabase());
    const { db } = getDatabase();
    const next = random(42);
    const pick = <T>(values: T[]) => values[Math.floor(next() * values.length)]!;
    const windowStart = NOW.getTime() - WINDOW_MINUTES * 60_000;
    const inWindow: WindowAttempt[] = [];
    let previousDay = 0;
    const people: { id: number; discordId: string }[] = [];
    for (let p = 0; p < 60; p++) {
      // ages spread around the limit, a few exactly on it
      const ageMs = pick([YOUNG_DAYS * DAY, YOUNG_DAYS * DAY - 1_000, YOUNG_DAYS * DAY + 1_000, next() * 30 * DAY, 400 * DAY]);
      const discordId = nextSnowflake(new Date(NOW.getTime() - ageMs));
      const member = await buildMember(db, { discordId, verifiedAt: NOW });
      people.push({ id: member.id, discordId });
      for (let k = 1 + Math.floor(next() * 3); k > 0; k--) {
        const fingerprintHash = pick([null, 'fa', 'fb', 'fc', `f-own-${p}`, `f-own-${p}`]);
        const ipHash = pick([null, 'ia', 'ib', `i-own-${p}`, `i-own-${p}`, `i-own-${p}`]);
        // in the window, on its edges, in the day before it, or older
        const at = pick([
          windowStart + 1,
          NOW.getTime(),
          windowStart + next() * WINDOW_MINUTES * 60_000,
          windowStart,
          windowStart - next() * DAY,
          NOW.getTime() - 3 * DAY,
        ]);
        await buildAttempt(db, member.id, { createdAt: new Date(at), fingerprintHash, ipHash });
        if (at > windowStart && at <= NOW.getTime()) inWindow.push({ memberId: member.id, discordId, fingerprintHash, ipHash });
        else if (at > windowStart - DAY && at <= windowStart) previousDay++;
      }
    }
    expect(inWindow.length).toBeGreaterThan(20);

    const counted = async (written?: WindowAttempt) => {
      const [row] = await selectRows<RaidWindowRow>(db, raidWindowQuery(NOW, WINDOW_MINUTES, YOUNG_DAYS, written));
      return raidWindowFrom(row);
    };
    const young = nextSnowflake(new Date(NOW.getTime() - DAY));
    // a member the statement writes too (not stored yet): an id no stored member has
    const newMember = -1;
    const cases: (WindowAttempt | undefined)[] = [
      undefined,
      // a new member whose profile one other member carries: both become shared
      { memberId: newMember, discordId: young, fingerprintHash: `f-own-${3}`, ipHash: null },
      // a member already in the window, on their own address again: not shared by that
      { memberId: people[5]!.id, discordId: people[5]!.discordId, fingerprintHash: null, ipHash: `i-own-${5}` },
      { memberId: newMember, discordId: young, fingerprintHash: 'fa', ipHash: 'ib' },
      { memberId: newMember, discordId: young, fingerprintHash: null, ipHash: null },
    ];
    for (const written of cases) {
      const expected = rule(written ? [...inWindow, written] : inWindow, NOW, YOUNG_DAYS, previousDay);
      expect({ written, window: await counted(written) }).toEqual({ written, window: expected });
    }
    // the generated window does exercise the rule's parts
    const whole = rule(inWindow, NOW, YOUNG_DAYS, previousDay);
    expect(whole.young).toBeGreaterThan(0);
    expect(whole.young).toBeLessThan(whole.verifications);
    expect(whole.shared).toBeGreaterThan(0);
    expect(whole.shared).toBeLessThan(whole.verifications);
    expect(whole.previousDay).toBeGreaterThan(0);

    // lazy counting (the admission read's): the day before only from the alarm's minimum on, nothing while `unless` holds
    const row = async (lazy: { minVerifications?: number; unless?: SQL; previousDay?: number }, written?: WindowAttempt) =>
      (await selectRows<RaidWindowRow>(db, raidWindowQuery(NOW, WINDOW_MINUTES, YOUNG_DAYS, written, lazy)))[0]!;
    const n = inWindow.length;
    expect(raidWindowFrom(await row({ minVerifications: n }))).toEqual(whole);
    expect(await row({ minVerifications: n + 1 })).toMatchObject({ previous_day: null });
    expect(raidWindowFrom(await row({ minVerifications: n + 1 }))).toEqual({ ...whole, previousDay: 0 });
    // the attempt the statement writes counts towards the minimum
    const written = cases[1]!;
    expect(raidWindowFrom(await row({ minVerifications: n + 1 }, written))).toEqual(
      rule([...inWindow, written], NOW, YOUNG_DAYS, previousDay),
    );
    expect(raidWindowFrom(await row({ unless: sql`false` }, written))).toEqual(rule([...inWindow, written], NOW, YOUNG_DAYS, previousDay));
    expect(raidWindowFrom(await row({ unless: sql`true`, minVerifications: 2 }, written))).toEqual({
      verifications: 0,
      previousDay: 0,
      young: 0,
      shared: 0,
    });
    // a recent count of the day before, given (previous-day-count.ts): answered as given, from the minimum on as counted ones
    expect(raidWindowFrom(await row({ minVerifications: n, previousDay: 4321 }))).toEqual({ ...whole, previousDay: 4321 });
    expect(await row({ minVerifications: n + 1, previousDay: 4321 })).toMatchObject({ previous_day: null });

    // and "not counted" means not read: the plan's scans of the attempts never run
    const plan = async (lazy: { minVerifications?: number; unless?: SQL; previousDay?: number }) => {
      const lines = await selectRows<{ 'QUERY PLAN': string }>(
        db,
        sql`explain (analyze, costs off, timing off) ${raidWindowQuery(NOW, WINDOW_MINUTES, YOUNG_DAYS, written, lazy)}`,
      );
      return lines.map((line) => line['QUERY PLAN']).filter((line) => /Scan .*on verification_attempts/.test(line));
    };
    const notStanding = await plan({ unless: sql`false`, minVerifications: 2 });
    expect(notStanding.length).toBeGreaterThanOrEqual(2);
    expect(notStanding.filter((line) => line.includes('never executed'))).toEqual([]);
    const whenStanding = await plan({ unless: sql`true`, minVerifications: 2 });
    expect(whenStanding.length).toBeGreaterThanOrEqual(2);
    expect(whenStanding.filter((line) => !line.includes('never executed'))).toEqual([]);
    const belowMinimum = await plan({ minVerifications: n + 2 });
    // the window itself is read; the day before it is not
    expect(belowMinimum.filter((line) => !line.includes('never executed'))).toHaveLength(1);
    // with the day before given, only the window is read, however many it holds
    const given = await plan({ minVerifications: 2, previousDay: 4321 });
    expect(given.filter((line) => !line.includes('never executed'))).toHaveLength(1);
    expect(notStanding.filter((line) => !line.includes('never executed')).length).toBeGreaterThan(1);
  });
});
