import { PgDialect } from 'drizzle-orm/pg-core';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildAltCandidateQuery, findAltCandidates, type CandidateProbe } from './alt-candidates.repository';

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
        from members m;
    `);
    // a steady state: statistics gathered and the visibility map set (autovacuum's job in production)
    await database.exec('vacuum analyze verification_attempts');
    await database.exec('vacuum analyze members');
  });

  it('returns nothing without any hash to look up', async () => {
    expect(await findAltCandidates(getDatabase().db, probe({}), { excludeMemberId: 1 })).toEqual([]);
  });

  it('finds attempts by any indexed hash, excluding the member, with the member attached', async () => {
    const found = await findAltCandidates(getDatabase().db, probe({ ipHash: 'ip-10', fingerprintHash: 'fp-20', fontsHash: 'fonts-30', audioHash: 'audio-99999' }), {
      excludeMemberId: 20,
    });
    expect(found.map((c) => c.memberId)).toEqual([30, 10]);
    expect(found[1]).toMatchObject({ ipHash: 'ip-10', networkHash: 'net-10', member: { id: 10, discordId: '1010', username: 'user10', createdAt: expect.any(Date) } });
    expect(found[1]!.createdAt).toBeInstanceOf(Date);
  });

  it('reads at most `limit` attempts per hash, newest first, however popular the hash', async () => {
    const found = await findAltCandidates(getDatabase().db, probe({ networkHash: 'hot-net', canvasHash: 'canvas-iphone' }), { excludeMemberId: 3900, limit: 50 });
    expect(found).toHaveLength(50);
    const ids = found.map((c) => c.attemptId);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(found.every((c) => c.memberId !== 3900)).toBe(true);
    // the network outranks a device component (only it can make a candidate score): the newest 50 of 'hot-net'
    expect(found.every((c) => c.networkHash === 'hot-net')).toBe(true);
    expect(found[0]!.memberId).toBe(3991);
  });

  it('never lets popular device components crowd an older same-address attempt out of the window', async () => {
    // member 7 shares an address with the probe; the 1000 newest attempts all share its canvas
    const found = await findAltCandidates(getDatabase().db, probe({ ipHash: 'ip-7', canvasHash: 'canvas-iphone', webglHash: 'webgl-raid' }), { excludeMemberId: 3999, limit: 50 });
    expect(found).toHaveLength(50);
    expect(found.map((c) => c.memberId)).toContain(7);
  });

  it('is answered from the (hash, id, member_id) indexes, never by scanning attempts', async () => {
    const database = getDatabase();
    const query = buildAltCandidateQuery(
      probe({ ipHash: 'ip-10', networkHash: 'hot-net', fingerprintHash: 'fp-10', canvasHash: 'canvas-iphone', webglHash: 'webgl-raid', audioHash: 'audio-10', fontsHash: 'fonts-10' }),
      { excludeMemberId: 10 },
    )!;
    const { sql, params } = new PgDialect().sqlToQuery(query);
    const plan = (await database.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).not.toMatch(/Seq Scan/);
    // each branch is a range of its own index, never a filter over another scan
    expect(plan).not.toMatch(/Filter: \([^\n]*_hash/);
    for (const index of ['attempts_ip_hash_idx', 'attempts_network_hash_idx', 'attempts_fingerprint_hash_idx', 'attempts_canvas_hash_idx', 'attempts_webgl_hash_idx', 'attempts_audio_hash_idx', 'attempts_fonts_hash_idx']) {
      expect(plan).toContain(index);
    }
    // rows and members are fetched by primary key, one lookup per chosen id
    expect(plan).toMatch(/Index Scan using verification_attempts_pkey on verification_attempts va [^\n]*\n\s*Index Cond: \(id = /);
    expect(plan).toMatch(/Index Scan using members_pkey on members mm [^\n]*\n\s*Index Cond: \(id = va\.member_id\)/);
    // PostgreSQL reads each branch as an index-only backward scan that stops after n entries,
    // even for the popular hashes; PGlite (no autovacuum, small tables) may bitmap-scan them instead
    if (engine === 'postgres') expect(plan.match(/Index Only Scan Backward using attempts_\w+_hash_idx/g)).toHaveLength(7);
  });
});
