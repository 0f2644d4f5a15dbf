import type { Database } from '../../db/client';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { explainPreparedGeneric } from '../../test-support/generic-plan';
import { findAltCandidates, scoringContext, type CandidateProbe } from './alt-candidates.repository';
import { canBeFlagged, RARITY, scoreCandidate, type AttemptSignals } from './alt-scoring';
import { markSharedNetwork, unmarkSharedNetwork } from './shared-networks.repository';

const probe = (overrides: Partial<CandidateProbe>): CandidateProbe => ({
  ipHash: null,
  networkHash: null,
  fingerprintHash: null,
  canvasHash: null,
  webglHash: null,
  audioHash: null,
  fontsHash: null,
  ...overrides,
});

/**
 * The plan find_alt_candidates (src/db/functions) runs its statement with: the statement of
 * its body, its parameters as $1…$n, prepared and explained as the generic plan the
 * function keeps (force_generic_plan), executed with `args` (SQL literals, in its order).
 */
async function explainLookupStatement(database: Database, args: string): Promise<string> {
  const { rows } = await database.query<{ prosrc: string; args: string[] }>(
    `select prosrc, proargnames as args from pg_proc where proname = 'find_alt_candidates'`,
  );
  const fn = rows[0]!;
  let statement = /RETURN \(([\s\S]*)\);\s*END;\s*$/.exec(fn.prosrc)![1]!;
  fn.args.forEach((name, i) => (statement = statement.replace(new RegExp(`\\b${name}\\b`, 'g'), `$${i + 1}`)));
  return explainPreparedGeneric(database, statement, args, {
    types: ['text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'bigint', 'integer', 'integer'],
  });
}

describeEngines('alt candidate lookup', (getDatabase, engine) => {
  beforeAll(async () => {
    const database = getDatabase();
    await resetDatabase(database);
    // 4000 members with one attempt each; 'hot-net' is shared by every 13th (a carrier NAT),
    // 'canvas-iphone' by every 4th (a uniform device), 'webgl-raid' by the oldest 400 (last
    // month's raid: popular, but only among old rows); the rest are unique
    await database.exec(`
      insert into members (discord_id, username, created_at)
        select (1000 + g)::text, 'user' || g, timestamptz '2026-01-01' + g * interval '1 minute' from generate_series(1, 4000) g;
      insert into verification_attempts (member_id, ip_hash, network_hash, fingerprint_hash, canvas_hash, webgl_hash, audio_hash, fonts_hash, outcome, created_at)
        select m.id, 'ip-' || m.id, case when m.id % 13 = 0 then 'hot-net' else 'net-' || m.id end, 'fp-' || m.id,
               case when m.id % 4 = 0 then 'canvas-iphone' else 'canvas-' || m.id end, case when m.id <= 400 then 'webgl-raid' else 'webgl-' || m.id end, 'audio-' || m.id, 'fonts-' || m.id,
               'verified', m.created_at
        from members m order by m.id; -- attempt ids in the members' order: a reused database's scan order may differ
    `);
    // a steady state: statistics gathered and the visibility map set (autovacuum's job in production)
    await database.exec('vacuum analyze verification_attempts');
    await database.exec('vacuum analyze members');
  });

  it('returns nothing without any hash to look up', async () => {
    expect(await findAltCandidates(getDatabase().db, probe({}), { excludeMemberId: 1 })).toEqual({
      candidates: [],
      sharedNetwork: false,
      counts: expect.objectContaining({ fingerprint: 0, address: 0 }),
    });
  });

  it('finds attempts by address, network or fingerprint, excluding the member, with the member attached', async () => {
    const { candidates: found } = await findAltCandidates(
      getDatabase().db,
      probe({ ipHash: 'ip-10', fingerprintHash: 'fp-20', networkHash: 'net-30', canvasHash: 'canvas-30' }),
      {
        excludeMemberId: 20,
      },
    );
    expect(found.map((c) => c.memberId)).toEqual([30, 10]);
    expect(found[1]).toMatchObject({
      ipHash: 'ip-10',
      networkHash: 'net-10',
      member: { id: 10, discordId: '1010', username: 'user10', createdAt: expect.any(Date) },
    });
    expect(found[1]!.member.createdAt).toBeInstanceOf(Date);
  });

  it('reads at most `limit` attempts per hash, newest first, however popular the hash', async () => {
    // 'hot-net' and 'canvas-iphone': every 52nd member, 76 of them
    const { candidates: found } = await findAltCandidates(
      getDatabase().db,
      probe({ networkHash: 'hot-net', canvasHash: 'canvas-iphone' }),
      { excludeMemberId: 3900, limit: 50 },
    );
    expect(found).toHaveLength(50);
    const ids = found.map((c) => c.attemptId);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(found.every((c) => c.memberId !== 3900)).toBe(true);
    expect(found.every((c) => c.networkHash === 'hot-net' && c.canvasHash === 'canvas-iphone')).toBe(true);
    expect(found[0]!.memberId).toBe(3952);
  });

  it('never lets a popular network crowd an older same-address or same-device attempt out of the window', async () => {
    // members 13 and 26 are on 'hot-net' too, but 75 newer attempts there share the probe's canvas
    const { candidates: found } = await findAltCandidates(
      getDatabase().db,
      probe({ ipHash: 'ip-13', fingerprintHash: 'fp-26', networkHash: 'hot-net', canvasHash: 'canvas-iphone' }),
      {
        excludeMemberId: 3991,
        limit: 50,
      },
    );
    expect(found).toHaveLength(50);
    expect(found.map((c) => c.memberId)).toEqual(expect.arrayContaining([13, 26]));
  });

  it('fills the window with same-device attempts first, so a busy address cannot crowd an old alt out', async () => {
    const database = getDatabase();
    // 60 accounts behind one address, all newer than member 5, whose device the probe shares
    await database.exec(`
      with m as (insert into members (discord_id, username) select 'busy-' || g, 'busy' || g from generate_series(1, 60) g returning id)
      insert into verification_attempts (member_id, ip_hash, network_hash, fingerprint_hash, outcome) select m.id, 'busy-ip', 'busy-net', 'fp-busy-' || m.id, 'verified' from m;
    `);
    const { candidates } = await findAltCandidates(database.db, probe({ ipHash: 'busy-ip', fingerprintHash: 'fp-5' }), {
      excludeMemberId: 1,
      limit: 50,
    });
    expect(candidates).toHaveLength(50);
    expect(candidates.filter((c) => c.fingerprintHash === 'fp-5').map((c) => c.memberId)).toEqual([5]);
    expect(candidates.filter((c) => c.ipHash === 'busy-ip')).toHaveLength(49);
  });

  it('puts the same address with the same fingerprint first, so newer strangers with a popular fingerprint cannot crowd out an older own account', async () => {
    const database = getDatabase();
    // member 7's device at home ('ip-7'), then 60 newer members elsewhere with the same (popular) fingerprint
    await database.exec(`
      update verification_attempts set fingerprint_hash = 'fp-popular' where member_id = 7;
      with m as (insert into members (discord_id, username) select 'twin-' || g, 'twin' || g from generate_series(1, 60) g returning id)
      insert into verification_attempts (member_id, ip_hash, network_hash, fingerprint_hash, canvas_hash, outcome) select m.id, 'twin-ip-' || m.id, 'twin-net-' || m.id, 'fp-popular', 'canvas-twin', 'verified' from m;
    `);
    try {
      const attempt = probe({ ipHash: 'ip-7', networkHash: 'net-7', fingerprintHash: 'fp-popular', canvasHash: 'canvas-twin' });
      const lookup = await findAltCandidates(database.db, attempt, { excludeMemberId: 1, limit: 50 });
      expect(lookup.candidates).toHaveLength(50);
      expect(lookup.candidates.map((c) => c.memberId)).toContain(7);
      // the anonymity sets: 61 members show the fingerprint, on 61 networks; one the address; 60 the canvas
      expect(lookup.counts).toMatchObject({ fingerprint: 61, fingerprintNetworks: 61, address: 1, canvas: 60, webgl: 0 });
      expect(
        scoringContext({ ...attempt, screenHash: null, timezoneHash: null, languageHash: null, platformHash: null }, lookup).counts
          .addressFingerprint,
      ).toBe(1);
      // counts stop at the newest 64 attempts of a value
      const busy = await findAltCandidates(database.db, probe({ networkHash: 'hot-net', canvasHash: 'canvas-iphone' }), {
        excludeMemberId: 1,
      });
      expect(busy.counts.canvas).toBe(64);
    } finally {
      await database.exec(
        `update verification_attempts set fingerprint_hash = 'fp-7' where member_id = 7; delete from verification_attempts where ip_hash like 'twin-ip-%'; delete from members where discord_id like 'twin-%'`,
      );
    }
  });

  it('on a network marked shared, looks up the fingerprint only and says the network is shared', async () => {
    const database = getDatabase();
    const lookup = () =>
      findAltCandidates(
        database.db,
        probe({ ipHash: 'ip-13', networkHash: 'hot-net', fingerprintHash: 'fp-26', canvasHash: 'canvas-iphone' }),
        { excludeMemberId: 3991, limit: 50 },
      );
    const before = await lookup();
    expect(before.sharedNetwork).toBe(false);
    expect(before.candidates).toHaveLength(50);

    await markSharedNetwork(database.db, { networkHash: 'hot-net', label: 'carrier NAT', now: new Date() });
    try {
      // address and network matches do not count there, so they are not read at all
      expect(await lookup()).toMatchObject({
        sharedNetwork: true,
        candidates: [expect.objectContaining({ memberId: 26, fingerprintHash: 'fp-26' })],
      });
      // no candidate at all: the marking is still reported
      expect(
        await findAltCandidates(database.db, probe({ ipHash: 'ip-13', networkHash: 'hot-net', canvasHash: 'canvas-iphone' }), {
          excludeMemberId: 3991,
        }),
      ).toMatchObject({ candidates: [], sharedNetwork: true });
    } finally {
      await unmarkSharedNetwork(database.db, 'hot-net');
    }
    expect((await lookup()).sharedNetwork).toBe(false);
  });

  it('returns every candidate scoring could flag, and none that shares only device components', async () => {
    const database = getDatabase();
    const device = (name: string) => ({
      canvasHash: `canvas-${name}`,
      webglHash: `webgl-${name}`,
      audioHash: `audio-${name}`,
      fontsHash: `fonts-${name}`,
      screenHash: `screen-${name}`,
      timezoneHash: `tz-${name}`,
      languageHash: `lang-${name}`,
      platformHash: `platform-${name}`,
    });
    const place = (name: string) => ({ ipHash: `ip-${name}`, networkHash: `net-${name}` });
    const attempt: AttemptSignals = { ...place('home'), fingerprintHash: 'fp-mine', ...device('mine') };
    const others: Record<string, AttemptSignals> = {
      'same address': { ...place('home'), fingerprintHash: 'fp-x1', ...device('x1') },
      'same network': { ipHash: 'ip-x2', networkHash: 'net-home', fingerprintHash: 'fp-x2', ...device('x2') },
      'same network, similar device': {
        ipHash: 'ip-x3',
        networkHash: 'net-home',
        fingerprintHash: 'fp-x3',
        ...device('x3'),
        canvasHash: 'canvas-mine',
        timezoneHash: 'tz-mine',
      },
      'same device elsewhere': { ...place('x4'), fingerprintHash: 'fp-mine', ...device('mine') },
      'identical phone elsewhere': { ...place('x5'), fingerprintHash: 'fp-x5', ...device('mine') },
      'similar device elsewhere': {
        ...place('x6'),
        fingerprintHash: 'fp-x6',
        ...device('x6'),
        canvasHash: 'canvas-mine',
        webglHash: 'webgl-mine',
        fontsHash: 'fonts-mine',
      },
      'nothing in common': { ...place('x7'), fingerprintHash: 'fp-x7', ...device('x7') },
    };
    const memberIds = new Map<string, number>();
    for (const [label, signals] of Object.entries({ mine: attempt, ...others })) {
      const { rows } = await database.query<{ id: number | string }>(
        `with m as (insert into members (discord_id, username) values ($1, $1) returning id)
         insert into verification_attempts (member_id, ip_hash, network_hash, fingerprint_hash, canvas_hash, webgl_hash, audio_hash, fonts_hash, screen_hash, timezone_hash, language_hash, platform_hash, outcome)
         select m.id, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'verified' from m returning member_id as id`,
        [
          `component-case ${label}`,
          signals.ipHash,
          signals.networkHash,
          signals.fingerprintHash,
          signals.canvasHash,
          signals.webglHash,
          signals.audioHash,
          signals.fontsHash,
          signals.screenHash,
          signals.timezoneHash,
          signals.languageHash,
          signals.platformHash,
        ],
      );
      memberIds.set(label, Number(rows[0]!.id));
    }

    const { candidates: found } = await findAltCandidates(
      database.db,
      probe({
        ipHash: attempt.ipHash,
        networkHash: attempt.networkHash,
        fingerprintHash: attempt.fingerprintHash,
        canvasHash: attempt.canvasHash,
        webglHash: attempt.webglHash,
        audioHash: attempt.audioHash,
        fontsHash: attempt.fontsHash,
      }),
      {
        excludeMemberId: memberIds.get('mine')!,
      },
    );
    const foundLabels = Object.keys(others).filter((label) => found.some((c) => c.memberId === memberIds.get(label)));
    const context = scoringContext(attempt, {
      candidates: found,
      sharedNetwork: false,
      counts: (await findAltCandidates(database.db, probe(attempt), { excludeMemberId: memberIds.get('mine')! })).counts,
    });
    const flaggable = Object.keys(others).filter((label) => canBeFlagged(attempt, others[label]!, context));
    const flagged = Object.keys(others).filter((label) => scoreCandidate(attempt, others[label]!, context).confidence !== null);
    // the identical phone elsewhere shares an audio read-out only one other member (the same
    // device elsewhere) shows: rare, so it is read on any network; the similar device
    // elsewhere shares only components three or four members show
    expect(foundLabels).toEqual(['same address', 'same network, similar device', 'same device elsewhere', 'identical phone elsewhere']);
    expect(foundLabels).toEqual(flaggable);
    // the similar device on the same network shares only a canvas four members show: not rare
    // enough to flag; the identical phone elsewhere is not flagged either: on a server this small
    // none of the attempt's components is common, so a rare one proves nothing (a stock font list
    // is rare among eight members)
    expect(flagged).toEqual(['same address', 'same device elsewhere']);

    // the same on a network marked shared: only the device itself still counts
    await markSharedNetwork(database.db, { networkHash: 'net-home', now: new Date() });
    const shared = await findAltCandidates(
      database.db,
      probe({
        ipHash: attempt.ipHash,
        networkHash: attempt.networkHash,
        fingerprintHash: attempt.fingerprintHash,
        canvasHash: attempt.canvasHash,
        webglHash: attempt.webglHash,
        audioHash: attempt.audioHash,
        fontsHash: attempt.fontsHash,
      }),
      {
        excludeMemberId: memberIds.get('mine')!,
      },
    );
    await unmarkSharedNetwork(database.db, 'net-home');
    expect(shared.sharedNetwork).toBe(true);
    const sharedLabels = Object.keys(others).filter((label) => shared.candidates.some((c) => c.memberId === memberIds.get(label)));
    expect(sharedLabels).toEqual(
      Object.keys(others).filter((label) => canBeFlagged(attempt, others[label]!, { ...context, sharedNetwork: true })),
    );
    expect(sharedLabels).toEqual(['same device elsewhere', 'identical phone elsewhere']);

    // ten more members elsewhere show the attempt's WebGL read-out: devices of its kind are
    // common here, so the audio read-out only the two show is the device's own, and the
    // identical phone with the same settings is the same machine seen from another place
    // (possible: this rule was medium until the badge tier kept only rules right nine times in
    // ten; in P8 it links 9 alts to 10 strangers)
    await database.query(
      `with m as (insert into members (discord_id, username) select 'component-case crowd ' || k, 'crowd' from generate_series(1, 10) k returning id, discord_id)
       insert into verification_attempts (member_id, ip_hash, network_hash, fingerprint_hash, webgl_hash, outcome)
       select m.id, 'ip-' || m.discord_id, 'net-' || m.discord_id, 'fp-' || m.discord_id, 'webgl-mine', 'verified' from m`,
    );
    const crowded = await findAltCandidates(database.db, probe(attempt), { excludeMemberId: memberIds.get('mine')! });
    expect(crowded.counts.webgl).toBeGreaterThanOrEqual(RARITY.commonComponentOthers);
    const common = scoringContext(attempt, crowded);
    expect(scoreCandidate(attempt, others['identical phone elsewhere']!, common)).toMatchObject({
      confidence: 'possible',
      detectionMethod: 'fingerprint',
    });
    expect(Object.keys(others).filter((label) => scoreCandidate(attempt, others[label]!, common).confidence !== null)).toEqual([
      'same address',
      'same device elsewhere',
      'identical phone elsewhere',
    ]);
  });

  it('is answered from the (hash, id, member_id) indexes, never by scanning attempts', async () => {
    // ip, network, fingerprint, canvas, webgl, audio, fonts, browser token, excluded member, limit, network scan limit
    const plan = await explainLookupStatement(
      getDatabase(),
      `'ip-10', 'hot-net', 'fp-10', 'canvas-iphone', 'webgl-raid', null, null, 'tok-10', 10, 50, 1000`,
    );
    expect(plan).not.toMatch(/Seq Scan/);
    // each branch is a range of its own index, never a filter over another scan; the
    // same-network branch filters its range on the components the index carries
    // (the same-address rows' fingerprints are read by primary key, to put one device first)
    expect(plan).not.toMatch(/Filter: \((?!\(?(recent|device)\.)[^\n]*_hash/);
    expect(plan).toMatch(/Filter: \(\(recent\.canvas_hash = [^\n]*recent\.webgl_hash = /);
    for (const index of [
      'attempts_ip_hash_idx',
      'attempts_network_hash_idx',
      'attempts_fingerprint_hash_idx',
      'attempts_browser_token_hash_idx',
    ]) {
      expect(plan).toContain(index);
    }
    // the component indexes are read for the anonymity counts (the newest 64 entries of each),
    // and as candidates only when the count says the component is rare: a range of the
    // component's own index behind a one-time filter on its count (a popular one is not read)
    expect(plan).toMatch(/attempts_(canvas|webgl|audio|fonts)_hash_idx/);
    const rareBranch = /\n {2}CTE by_rare_component\n([\s\S]*?)\n {2}\S/.exec(plan)![1]!;
    for (const c of ['canvas', 'webgl', 'audio', 'fonts']) {
      expect(rareBranch).toMatch(
        new RegExp(
          `One-Time Filter: \\(\\(?(InitPlan \\d+\\)\\.col1|\\$\\d+) <= 2\\)\\n\\s*->  [^\\n]*Scan[^\\n]* using attempts_${c}_hash_idx[^\\n]*\\n\\s*Index Cond: \\(\\(${c}_hash >= `,
        ),
      );
    }
    expect(rareBranch).not.toMatch(/Seq Scan|Filter: \([^\n]*_hash =/);
    // rows and members are fetched by primary key, one lookup per chosen id
    expect(plan).toMatch(/Index Scan using verification_attempts_pkey on verification_attempts va [^\n]*\n\s*Index Cond: \(id = /);
    expect(plan).toMatch(/Index Scan using members_pkey on members mm [^\n]*\n\s*Index Cond: \(id = va\.member_id\)/);
    // PostgreSQL reads each branch as an index-only backward scan that stops after n entries,
    // even for the popular hashes; PGlite (no autovacuum, small tables) may bitmap-scan them instead
    if (engine === 'postgres')
      expect(plan.match(/Index Only Scan Backward using attempts_\w+_hash_idx/g)!.length).toBeGreaterThanOrEqual(3);
  });
});
