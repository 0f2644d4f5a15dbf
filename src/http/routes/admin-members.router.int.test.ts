import request from 'supertest';
import type { OutboxPort } from '../../modules/outbox';
import { memberStanding, statusBadge } from '../../shared/member-badges';
import { buildAttempt, buildLink, buildMember, buildNote } from '../../test-support/factories';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createStaffTestApp, loginCookie, seedTeam, TEAM } from '../../test-support/staff-test-kit';

const failingOutbox: OutboxPort = {
  enqueue: async () => {
    throw new Error('outbox unavailable');
  },
  enqueueQuery: () => {
    throw new Error('outbox unavailable');
  },
};

const USER_RECORD_KEYS = [
  'altsFound',
  'avatarUrl',
  'discordId',
  'id',
  'isLinkedAsAlt',
  'manualAltStatus',
  'rulesConfirmed',
  'status',
  'timestamp',
  'usedVpn',
  'username',
  'verificationCount',
  'vpnAttempts',
].sort();

describeEngines('admin member routes', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;
  let mod: string;
  let admin: string;

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    kit = createStaffTestApp(getDatabase());
    await seedTeam(getDatabase().db);
    mod = await loginCookie(kit.app, 'Mod', TEAM.mod.password);
    admin = await loginCookie(kit.app, 'Admin', TEAM.admin.password);
  });

  const get = (path: string, cookie = mod) => request(kit.app).get(path).set('Cookie', cookie);
  const post = (path: string, body?: object, cookie = mod) => request(kit.app).post(path).set('Cookie', cookie).send(body);
  const patch = (path: string, body: object, cookie = mod) => request(kit.app).patch(path).set('Cookie', cookie).send(body);
  const count = async (sql: string, params: unknown[] = []) => Number((await getDatabase().query<{ n: string }>(sql, params)).rows[0]!.n);
  const auditCount = (action: string) => count('select count(*) as n from audit_log where action = $1', [action]);

  describe('GET /api/admin/users', () => {
    it('returns user records, newest first, with total and a cursor', async () => {
      const { db } = getDatabase();
      for (let i = 0; i < 5; i++)
        await buildMember(db, {
          discordId: `10000000000000000${i}`,
          username: `member${i}`,
          verifiedAt: new Date(Date.UTC(2026, 0, 1 + i)),
        });
      const first = await get('/api/admin/users?limit=2');
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ total: 5, totalIsExact: true, totalIsCapped: false });
      expect(first.body.users.map((u: { username: string }) => u.username)).toEqual(['member4', 'member3']);
      expect(Object.keys(first.body.users[0]).sort()).toEqual(USER_RECORD_KEYS);
      expect(first.body.users[0]).toMatchObject({
        discordId: '100000000000000004',
        timestamp: '2026-01-05T00:00:00.000Z',
        status: 'verified',
        rulesConfirmed: true,
      });
      const second = await get(`/api/admin/users?limit=2&cursor=${first.body.nextCursor}`);
      expect(second.body.users.map((u: { username: string }) => u.username)).toEqual(['member2', 'member1']);
      const last = await get(`/api/admin/users?limit=2&cursor=${second.body.nextCursor}`);
      expect(last.body.users.map((u: { username: string }) => u.username)).toEqual(['member0']);
      expect(last.body.nextCursor).toBeNull();
    });

    it('filters and searches on the server', async () => {
      const { db } = getDatabase();
      await buildMember(db, { discordId: '100000000000000010', username: 'plain' });
      await buildMember(db, { discordId: '100000000000000011', username: 'limited', status: 'limited_access' });
      await buildMember(db, { discordId: '100000000000000012', username: 'alt_one', isLinkedAsAlt: true });
      await buildMember(db, { discordId: '100000000000000013', username: 'altXone', manualAltStatus: 'certain_alt' });
      const names = async (query: string) => {
        const res = await get(`/api/admin/users?${query}`);
        expect(res.status).toBe(200);
        return { names: res.body.users.map((u: { username: string }) => u.username).sort(), total: res.body.total };
      };
      expect(await names('filter=verified')).toEqual({ names: ['plain'], total: 1 });
      expect(await names('filter=unverified')).toEqual({ names: ['limited'], total: 1 });
      expect(await names('filter=certain_alts')).toEqual({ names: ['altXone', 'alt_one'], total: 2 });
      expect(await names(`search=${encodeURIComponent('alt_')}`)).toEqual({ names: ['alt_one'], total: 1 });
      expect(await names(`search=${encodeURIComponent('%')}`)).toEqual({ names: [], total: 0 });
      expect(await names('search=ALT&filter=certain_alts')).toEqual({ names: ['altXone', 'alt_one'], total: 2 });
      expect(await names('search=00000000000000011')).toEqual({ names: ['limited'], total: 1 });
    });

    it.each([
      ['an unknown filter', 'filter=everyone', 'Filter must be all, verified, unverified or certain_alts', 'filter'],
      ['limit 0', 'limit=0', 'Limit must be a number from 1 to 200', 'limit'],
      ['limit 201', 'limit=201', 'Limit must be a number from 1 to 200', 'limit'],
      ['a non-numeric limit', 'limit=ten', 'Limit must be a number from 1 to 200', 'limit'],
      ['a forged cursor', 'cursor=garbage', 'Invalid cursor', 'cursor'],
      ['a 101-character search', `search=${'x'.repeat(101)}`, 'Search must be at most 100 characters', 'search'],
    ])('refuses %s', async (_label, query, error, field) => {
      const res = await get(`/api/admin/users?${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error, field });
    });
  });

  describe('GET /api/admin/users/:discordId', () => {
    it('returns the detail: identity, fingerprint, components, alts both ways, notes, evidence', async () => {
      const { db } = getDatabase();
      // snowflake of 2020-01-01T00:00:00.000Z
      const discordId = ((BigInt(Date.UTC(2020, 0, 1)) - 1420070400000n) << 22n).toString();
      const member = await buildMember(db, {
        discordId,
        username: 'subject',
        fingerprintHash: 'a'.repeat(32),
        usedVpn: true,
        vpnAttempts: 2,
        vpnProvider: 'NordVPN',
        altsFound: 2,
      });
      const older = await buildMember(db, { discordId: '100000000000000020', username: 'older' });
      const newer = await buildMember(db, { discordId: '100000000000000021', username: 'newer' });
      const olderLink = await buildLink(db, older.id, member.id, {
        confidence: 'medium',
        detectionMethod: 'fingerprint',
        evidence: { components: { canvas: true, webgl: false, hardware: true, bogus: 'x' } },
      });
      const newerLink = await buildLink(db, member.id, newer.id, {
        confidence: 'certain',
        detectionMethod: 'both',
        evidence: { components: { canvas: true, audio: true } },
      });
      await buildAttempt(db, member.id, {
        ipHash: 'secret-ip-hash',
        networkHash: 'net-hash',
        fingerprintHash: 'b'.repeat(32),
        canvasHash: 'c1',
        webglHash: 'w1',
      });
      await buildAttempt(db, member.id, { ipHash: null, outcome: 'limited_access', vpnVerdict: 'vpn', vpnProvider: 'NordVPN' });
      await buildNote(db, member.id, 'older note', { authorName: 'Mod', createdAt: new Date('2026-01-01T00:00:00Z') });
      await buildNote(db, member.id, 'newer note', { authorName: 'Admin', createdAt: new Date('2026-01-02T00:00:00Z') });

      const res = await get(`/api/admin/users/${discordId}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        discordId,
        username: 'subject',
        creationDate: '2020-01-01T00:00:00.000Z',
        fingerprint: 'a'.repeat(32),
        fingerprintComponents: { canvas: true, webgl: true },
        verificationStatus: 'pending',
        vpnAttempts: 2,
        vpnProvider: 'NordVPN',
        serversVerifiedIn: 1,
        source: 'web',
      });
      expect(res.body.adminNotes.map((n: { note: string; authorName: string }) => [n.note, n.authorName])).toEqual([
        ['newer note', 'Admin'],
        ['older note', 'Mod'],
      ]);
      expect(res.body.alts).toEqual([
        {
          linkId: newerLink.id,
          discordId: '100000000000000021',
          username: 'newer',
          avatarUrl: null,
          confidence: 'certain',
          detectionMethod: 'both',
          fingerprintComponents: { canvas: true, audio: true },
          otherIs: 'alt',
          evidence: { components: { canvas: true, audio: true } },
          dismissed: null,
        },
        {
          linkId: olderLink.id,
          discordId: '100000000000000020',
          username: 'older',
          avatarUrl: null,
          confidence: 'medium',
          detectionMethod: 'fingerprint',
          fingerprintComponents: { canvas: true, webgl: false },
          otherIs: 'main',
          evidence: { components: { canvas: true, webgl: false } },
          dismissed: null,
        },
      ]);
      expect(res.body.evidence).toHaveLength(2);
      expect(res.body.evidence[0]).toMatchObject({
        outcome: 'limited_access',
        vpnVerdict: 'vpn',
        vpnProvider: 'NordVPN',
        ipRecorded: false,
        fingerprintRecorded: false,
      });
      expect(res.body.evidence[1]).toMatchObject({
        outcome: 'verified',
        ipRecorded: true,
        networkRecorded: true,
        fingerprintRecorded: true,
      });
      expect(JSON.stringify(res.body)).not.toContain('secret-ip-hash');
      expect(JSON.stringify(res.body)).not.toContain('net-hash');
    });

    it('says where the member stands: verifications, their times, and the reason in one sentence', async () => {
      const { db } = getDatabase();
      const first = new Date('2026-11-01T10:00:00Z');
      const last = new Date('2026-11-02T11:00:00Z');
      const main = await buildMember(db, { username: 'main' });
      const alt = await buildMember(db, {
        username: 'second',
        isLinkedAsAlt: true,
        altsFound: 1,
        verificationCount: 2,
        createdAt: first,
        verifiedAt: last,
      });
      await buildLink(db, main.id, alt.id, {
        confidence: 'certain',
        detectionMethod: 'both',
        evidence: { fingerprintMatch: true, ipMatch: true, networkMatch: true },
      });
      const limited = await buildMember(db, {
        username: 'hidden',
        status: 'limited_access',
        rulesConfirmed: false,
        usedVpn: true,
        vpnAttempts: 2,
        vpnProvider: 'NordVPN',
      });
      const marked = await buildMember(db, { username: 'marked', manualAltStatus: 'suspected_alt' });
      const clean = await buildMember(db, { username: 'clean' });
      const manual = await buildMember(db, { username: 'typed', source: 'manual', verificationCount: 0 });

      const standing = async (discordId: string) => {
        const body = (await get(`/api/admin/users/${discordId}`)).body as Record<string, unknown>;
        return { reason: body.standingReason, first: body.firstVerifiedAt, last: body.lastVerifiedAt, count: body.verificationCount };
      };
      expect(await standing(alt.discordId)).toEqual({
        reason: 'Shared device profile and address with @main',
        first: first.toISOString(),
        last: last.toISOString(),
        count: 2,
      });
      expect((await standing(main.discordId)).reason).toBe('Shared device profile and address with @second');
      expect((await standing(limited.discordId)).reason).toBe('Limited Access after a VPN check (NordVPN)');
      expect((await standing(marked.discordId)).reason).toBe('Marked suspected alt by staff');
      expect((await standing(clean.discordId)).reason).toBeNull();
      expect(await standing(manual.discordId)).toEqual({ reason: null, first: null, last: null, count: 0 });
    });

    it('answers 404 User not found and 400 for a malformed ID', async () => {
      const missing = await get('/api/admin/users/123456789012345678');
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe('User not found');
      const bad = await get('/api/admin/users/not-an-id');
      expect(bad.status).toBe(400);
      expect(bad.body.field).toBe('discordId');
    });
  });

  describe('notes', () => {
    it('saves notes as history, newest first, audited without their text', async () => {
      const { db } = getDatabase();
      await buildMember(db, { discordId: '100000000000000030' });
      expect((await post('/api/admin/users/100000000000000030/notes', { note: 'first thought' })).status).toBe(201);
      kit.clock.advance(1000);
      const res = await post('/api/admin/users/100000000000000030/notes', { note: '  second thought  ' });
      expect(res.body).toMatchObject({ success: true, note: { note: 'second thought', authorName: 'Mod' } });
      const detail = await get('/api/admin/users/100000000000000030');
      expect(detail.body.adminNotes.map((n: { note: string }) => n.note)).toEqual(['second thought', 'first thought']);
      expect(await auditCount('member.note_add')).toBe(2);
      expect((await getDatabase().query("select 1 from audit_log where details::text like '%thought%'")).rows).toHaveLength(0);
    });

    it.each([
      ['missing', {}, 'Note is required'],
      ['empty', { note: '' }, 'Note is required'],
      ['blank', { note: '   ' }, 'Note is required'],
      ['5001 characters', { note: 'x'.repeat(5001) }, 'Note must be at most 5000 characters'],
    ])('validates a %s note', async (_label, body, error) => {
      await buildMember(getDatabase().db, { discordId: '100000000000000031' });
      const res = await post('/api/admin/users/100000000000000031/notes', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error, field: 'note' });
    });

    it('answers 404 for an unknown member', async () => {
      expect((await post('/api/admin/users/100000000000000032/notes', { note: 'x' })).status).toBe(404);
    });
  });

  describe('alt status override', () => {
    it('sets and clears the override, audited with before and after', async () => {
      await buildMember(getDatabase().db, { discordId: '100000000000000040' });
      const set = await patch('/api/admin/users/100000000000000040/alt-status', { manualAltStatus: 'certain_alt' });
      expect(set.body).toEqual({ success: true, manualAltStatus: 'certain_alt' });
      expect((await get('/api/admin/users?filter=certain_alts')).body.total).toBe(1);
      await patch('/api/admin/users/100000000000000040/alt-status', { manualAltStatus: null }).expect(200);
      expect((await get('/api/admin/users/100000000000000040')).body.manualAltStatus).toBeNull();
      const details = (
        await getDatabase().query<{ details: unknown }>("select details from audit_log where action = 'member.alt_status' order by id")
      ).rows.map((r) => r.details);
      expect(details).toEqual([
        { from: null, to: 'certain_alt' },
        { from: 'certain_alt', to: null },
      ]);
    });

    it.each([[{}], [{ manualAltStatus: 'maybe_alt' }], [{ manualAltStatus: true }]])('refuses %j', async (body) => {
      await buildMember(getDatabase().db, { discordId: '100000000000000041' });
      const res = await patch('/api/admin/users/100000000000000041/alt-status', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'manualAltStatus must be suspected_alt, certain_alt or null', field: 'manualAltStatus' });
    });

    it('answers 404 for an unknown member', async () => {
      expect((await patch('/api/admin/users/100000000000000042/alt-status', { manualAltStatus: null })).status).toBe(404);
    });
  });

  describe('manual verification', () => {
    it('grants access through the outbox in the same transaction, once', async () => {
      await buildMember(getDatabase().db, { discordId: '100000000000000050', status: 'limited_access' });
      const res = await post('/api/admin/users/100000000000000050/manual-verify');
      expect(res.status).toBe(200);
      const detail = await get('/api/admin/users/100000000000000050');
      expect(detail.body).toMatchObject({ verificationStatus: 'verified', status: 'verified' });
      const outbox = (
        await getDatabase().query<{ kind: string; payload: { add?: string[]; remove?: string[] } }>(
          'select kind, payload from discord_outbox where discord_id = $1 order by id',
          ['100000000000000050'],
        )
      ).rows;
      expect(outbox.map((o) => `${o.kind}:${o.payload.add?.join('+') ?? ''}-${o.payload.remove?.join('+') ?? ''}`)).toEqual([
        'update_roles:verified-unverified+limited',
        'log_message:-',
      ]);
      expect(await auditCount('member.manual_verify')).toBe(1);

      const again = await post('/api/admin/users/100000000000000050/manual-verify');
      expect(again.status).toBe(409);
      expect(again.body.error).toBe('User is already verified');
    });

    it('writes nothing when the outbox fails', async () => {
      const broken = createStaffTestApp(getDatabase(), { outbox: failingOutbox });
      await buildMember(getDatabase().db, { discordId: '100000000000000051' });
      const cookie = await loginCookie(broken.app, 'Mod', TEAM.mod.password);
      const res = await request(broken.app).post('/api/admin/users/100000000000000051/manual-verify').set('Cookie', cookie);
      expect(res.status).toBe(500);
      expect((await get('/api/admin/users/100000000000000051')).body.verificationStatus).toBe('pending');
      expect(await auditCount('member.manual_verify')).toBe(0);
    });

    it('a member verified by hand reads Verified everywhere, not Pending', async () => {
      // signed in on the website but never confirmed the rules: Pending until staff verify by hand
      await buildMember(getDatabase().db, { discordId: '100000000000000053', rulesConfirmed: false });
      expect(statusBadge((await get('/api/admin/users/100000000000000053')).body).label).toBe('Pending');
      expect((await post('/api/admin/users/100000000000000053/manual-verify')).status).toBe(200);
      const detail = (await get('/api/admin/users/100000000000000053')).body;
      expect(memberStanding(detail)).toBe('verified');
      expect(statusBadge(detail).label).toBe('Verified');
      const verified = await get('/api/admin/users?filter=verified');
      expect(verified.body.users.map((u: { discordId: string }) => u.discordId)).toContain('100000000000000053');
    });

    it('answers 404 for an unknown member', async () => {
      expect((await post('/api/admin/users/100000000000000052/manual-verify')).status).toBe(404);
    });
  });

  describe('manual entry', () => {
    const entry = (overrides: Record<string, unknown> = {}) => ({
      discordId: '100000000000000060',
      username: 'handmade',
      avatarUrl: 'https://cdn.discordapp.com/avatars/1/abc.png',
      status: 'verified',
      rulesConfirmed: 'true',
      manualAltStatus: null,
      ...overrides,
    });

    it('creates a manual record the list, the detail page and the bot can use', async () => {
      const res = await post('/api/admin/manual-entry', entry({ manualAltStatus: 'suspected_alt' }));
      expect(res.status).toBe(201);
      expect(res.body.user).toMatchObject({
        discordId: '100000000000000060',
        username: 'handmade',
        status: 'verified',
        rulesConfirmed: true,
        manualAltStatus: 'suspected_alt',
        verificationCount: 1,
      });
      const detail = await get('/api/admin/users/100000000000000060');
      expect(detail.body).toMatchObject({
        source: 'manual',
        verificationStatus: 'pending',
        avatarUrl: 'https://cdn.discordapp.com/avatars/1/abc.png',
      });
      expect((await get('/api/admin/users?search=handmade')).body.total).toBe(1);
      expect(await auditCount('member.manual_entry')).toBe(1);
    });

    it('keeps only the ID and username of a Limited Access record, and takes empty fields as none', async () => {
      await post('/api/admin/manual-entry', entry({ status: 'limited_access', rulesConfirmed: 'false', manualAltStatus: '' })).expect(201);
      const detail = await get('/api/admin/users/100000000000000060');
      expect(detail.body).toMatchObject({ status: 'limited_access', avatarUrl: null, rulesConfirmed: false, manualAltStatus: null });
      await post('/api/admin/manual-entry', entry({ discordId: '100000000000000061', avatarUrl: '' })).expect(201);
      expect((await get('/api/admin/users/100000000000000061')).body.avatarUrl).toBeNull();
    });

    it('answers 409 when a record exists, changing nothing', async () => {
      await buildMember(getDatabase().db, { discordId: '100000000000000060', username: 'original' });
      const res = await post('/api/admin/manual-entry', entry());
      expect(res.status).toBe(409);
      expect((await get('/api/admin/users/100000000000000060')).body.username).toBe('original');
      expect(await auditCount('member.manual_entry')).toBe(0);
    });

    it.each([
      [{ discordId: undefined }, 'Discord ID is required', 'discordId'],
      [{ discordId: '' }, 'Discord ID is required', 'discordId'],
      [{ discordId: '  ' }, 'Discord ID is required', 'discordId'],
      [{ discordId: 'abc' }, 'Discord ID must be a numeric Discord user ID', 'discordId'],
      [{ username: undefined }, 'Username is required', 'username'],
      [{ username: '' }, 'Username is required', 'username'],
      [{ avatarUrl: 'javascript:alert(1)' }, 'Avatar URL must be an http(s) URL', 'avatarUrl'],
      [{ avatarUrl: 'not a url' }, 'Avatar URL must be an http(s) URL', 'avatarUrl'],
      [{ status: 'banned' }, 'Status must be verified or limited_access', 'status'],
      [{ status: undefined }, 'Status must be verified or limited_access', 'status'],
      [{ rulesConfirmed: 'yes' }, "Rules confirmed must be 'true' or 'false'", 'rulesConfirmed'],
      [{ manualAltStatus: 'probably' }, 'manualAltStatus must be suspected_alt, certain_alt or null', 'manualAltStatus'],
    ])('validates %j', async (overrides, error, field) => {
      const res = await post('/api/admin/manual-entry', entry(overrides));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error, field });
      expect(await count('select count(*) as n from members')).toBe(0);
    });

    it('reports the Discord ID first when both required fields are missing', async () => {
      const res = await post('/api/admin/manual-entry', { status: 'verified', rulesConfirmed: 'true' });
      expect(res.body.error).toBe('Discord ID is required');
    });
  });

  describe('deletion', () => {
    async function linkedTrio() {
      const { db } = getDatabase();
      const main = await buildMember(db, { discordId: '100000000000000070', altsFound: 1 });
      const alt = await buildMember(db, { discordId: '100000000000000071', altsFound: 1, isLinkedAsAlt: true });
      await buildLink(db, main.id, alt.id);
      await buildAttempt(db, alt.id);
      await buildNote(db, alt.id);
      return { main, alt };
    }

    it('the dashboard delete (any staff) removes attempts, links and notes and fixes the counters', async () => {
      await linkedTrio();
      const res = await post('/api/privacy/delete', { discordId: '100000000000000071' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true });
      expect(await count('select count(*) as n from verification_attempts')).toBe(0);
      expect(await count('select count(*) as n from alt_links')).toBe(0);
      expect(await count('select count(*) as n from admin_notes')).toBe(0);
      expect((await get('/api/admin/users/100000000000000070')).body).toMatchObject({ altsFound: 0, isLinkedAsAlt: false });
      expect(await auditCount('member.delete')).toBe(1);
    });

    it('the detail-page delete is for super admins', async () => {
      await linkedTrio();
      expect((await request(kit.app).delete('/api/admin/users/100000000000000070').set('Cookie', mod)).status).toBe(403);
      expect((await request(kit.app).delete('/api/admin/users/100000000000000070').set('Cookie', admin)).status).toBe(200);
      expect((await get('/api/admin/users/100000000000000070')).status).toBe(404);
      expect((await get('/api/admin/users/100000000000000071')).body).toMatchObject({ altsFound: 0, isLinkedAsAlt: false });
    });

    it('answers 404 for an unknown member and 400 without an ID', async () => {
      expect((await post('/api/privacy/delete', { discordId: '100000000000000079' })).status).toBe(404);
      expect((await request(kit.app).delete('/api/admin/users/100000000000000079').set('Cookie', admin)).status).toBe(404);
      const missing = await post('/api/privacy/delete', {});
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ error: 'Discord ID is required', field: 'discordId' });
    });

    it('deletes nothing when the outbox fails', async () => {
      await linkedTrio();
      const broken = createStaffTestApp(getDatabase(), { outbox: failingOutbox });
      const cookie = await loginCookie(broken.app, 'Mod', TEAM.mod.password);
      const res = await request(broken.app).post('/api/privacy/delete').set('Cookie', cookie).send({ discordId: '100000000000000071' });
      expect(res.status).toBe(500);
      expect(await count('select count(*) as n from members')).toBe(2);
      expect(await count('select count(*) as n from alt_links')).toBe(1);
      expect(await auditCount('member.delete')).toBe(0);
    });
  });
});
