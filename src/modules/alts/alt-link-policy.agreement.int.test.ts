import { ALT_CONFIDENCES, DETECTION_METHODS } from '../../db/schema';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { linkChangeFor, type StoredLinkState } from './alt-link-policy';
import { saveDetectedLinks, type DetectedLinkInput } from './alt-links.repository';
import type { AltEvidence, DetectedAltMethod } from './alt-scoring';

/**
 * The link upgrade policy is stated in TypeScript (linkChangeFor) and applied in SQL
 * (save_alt_links). Every combination of stored link (none, or each confidence × method ×
 * open or dismissed by staff, either direction) and detection (each confidence × method, either direction) is saved in
 * one call, and each outcome must be the one linkChangeFor gives.
 */

const DETECTED_METHODS: DetectedAltMethod[] = ['ip', 'fingerprint', 'both', 'network'];
const storedStates: (StoredLinkState | null)[] = [
  null,
  ...ALT_CONFIDENCES.flatMap((confidence) =>
    DETECTION_METHODS.flatMap((detectionMethod) => [false, true].map((dismissed) => ({ confidence, detectionMethod, dismissed }))),
  ),
];
const detections = ALT_CONFIDENCES.flatMap((confidence) => DETECTED_METHODS.map((detectionMethod) => ({ confidence, detectionMethod })));

interface Case {
  other: number;
  stored: StoredLinkState | null;
  storedReversed: boolean;
  detected: { confidence: (typeof ALT_CONFIDENCES)[number]; detectionMethod: DetectedAltMethod };
  detectedReversed: boolean;
}

describeEngines('save_alt_links agrees with linkChangeFor', (getDatabase) => {
  it('on every stored link × detection, in either direction', async () => {
    const database = getDatabase();
    await resetDatabase(database);
    const cases: Case[] = [];
    for (const stored of storedStates) {
      for (const detected of detections) {
        for (const storedReversed of stored ? [false, true] : [false]) {
          for (const detectedReversed of [false, true])
            cases.push({ other: cases.length + 2, stored, storedReversed, detected, detectedReversed });
        }
      }
    }
    // member 1 is the one being detected; member i + 2 is the other side of case i
    await database.query(
      `insert into members (id, discord_id, username) overriding system value select g, (1000 + g)::text, 'm' || g from generate_series(1, $1::int) g`,
      [cases.length + 1],
    );
    const storedLinks = cases.flatMap(({ other, stored, storedReversed }) =>
      stored
        ? [
            {
              main: storedReversed ? other : 1,
              alt: storedReversed ? 1 : other,
              confidence: stored.confidence,
              method: stored.detectionMethod,
              dismissed: stored.dismissed,
            },
          ]
        : [],
    );
    await database.query(
      `insert into alt_links (main_member_id, alt_member_id, confidence, detection_method, evidence, created_at, updated_at, dismissed_at, dismissed_by_name)
       select main, alt, confidence, method, '{"stored": true}'::jsonb, timestamptz '2026-01-01 00:00:00+00', timestamptz '2026-01-01 00:00:00+00',
         case when dismissed then timestamptz '2026-01-02 00:00:00+00' end, case when dismissed then 'staff' end
       from jsonb_to_recordset($1::jsonb) as x(main bigint, alt bigint, confidence text, method text, dismissed boolean)`,
      [JSON.stringify(storedLinks)],
    );
    const now = new Date('2026-02-01T00:00:00.000Z');
    const links: DetectedLinkInput[] = cases.map(({ other, detected, detectedReversed }) => ({
      mainMemberId: detectedReversed ? other : 1,
      altMemberId: detectedReversed ? 1 : other,
      ...detected,
      evidence: { detection: other } as unknown as AltEvidence,
    }));
    const { saved, counters } = await saveDetectedLinks(database.db, 1, links, now);

    const outcomes = saved.map(({ link, change }) => ({
      change,
      confidence: link.confidence,
      detectionMethod: link.detectionMethod,
      main: link.mainMemberId,
      evidence: link.evidence,
      updatedAt: link.updatedAt.toISOString(),
    }));
    const expected = cases.map(({ other, stored, storedReversed, detected, detectedReversed }) => {
      const change = linkChangeFor(stored, detected);
      const replaced = change !== 'kept' && change !== 'dismissed';
      const storedMain = storedReversed ? other : 1;
      return {
        change,
        confidence: replaced ? detected.confidence : stored!.confidence,
        detectionMethod: replaced ? detected.detectionMethod : stored!.detectionMethod,
        // a stored link keeps its direction; a created one takes the detection's
        main: stored ? storedMain : detectedReversed ? other : 1,
        evidence: replaced ? { detection: other } : { stored: true },
        updatedAt: replaced ? now.toISOString() : '2026-01-01T00:00:00.000Z',
      };
    });
    expect(outcomes).toEqual(expected);
    // every kind of outcome occurred
    expect(new Set(outcomes.map((o) => o.change))).toEqual(new Set(['created', 'strengthened', 'refreshed', 'kept', 'dismissed']));
    // a dismissed pair stays dismissed and is not recounted: only the members whose link changed are
    const dismissedOthers = cases.filter((c) => c.stored?.dismissed).map((c) => String(c.other));
    const { rows } = await database.query<{ n: number }>(`select count(*)::int as n from alt_links where dismissed_at is not null`);
    expect(rows[0]?.n).toBe(storedLinks.filter((l) => l.dismissed).length);
    expect(dismissedOthers.some((id) => counters?.has(Number(id)))).toBe(false);
  });
});
