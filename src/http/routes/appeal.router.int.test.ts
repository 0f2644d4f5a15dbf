import express from 'express';
import request from 'supertest';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildLink, buildMember } from '../../test-support/factories';
import { createStaffTestApp, loginCookie, seedTeam, TEAM } from '../../test-support/staff-test-kit';
import { createRateLimiter } from '../middleware/rate-limit';
import { writeVisitor } from '../visitor-session';
import { appealRouter, APPEAL_SESSION_MAX_AGE_MS, SIGN_IN_AGAIN } from './appeal.router';
import type { AppealsService } from '../../modules/appeals';
import { APPEAL_MESSAGE_MAX } from '../../shared/appeals';
import { eraseMembers } from '../../modules/members';

/**
 * The visitor's appeal routes and the staff queue on a real database: every bad input is a
 * 4xx with a JSON error and writes nothing; a decided appeal cannot be decided again (409).
 */

const TABLES = ['appeals', 'members', 'alt_links', 'discord_outbox', 'audit_log'];

describeEngines('appeals: visitor and staff routes', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;
  let staffCookie: string;
  let ip = 0;

  beforeAll(() => {
    // the appeal router needs the kit's services and clock: reached through these once the kit exists
    const appeals: Pick<AppealsService, 'visitorState' | 'file'> = {
      visitorState: (id) => kit.deps.appeals.visitorState(id),
      file: (id, message) => kit.deps.appeals.file(id, message),
    };
    const now = () => kit.clock.now().getTime();
    const limit = createRateLimiter({
      capacity: 3,
      refillPerSecond: 1 / 600,
      key: (req) => String(req.headers['x-forwarded-for']),
      clock: { now: () => kit.clock.now() },
    });
    // a stand-in for the OAuth callback: puts a verification (or an appeal sign-in) in the session
    const signIn = express.Router();
    signIn.post('/test/sign-in', (req, res) => {
      const { discordId, as } = req.body as { discordId: string; as: 'verified' | 'appellant' };
      writeVisitor(req, (v) => ({ ...v, [as]: { discordId, at: kit.clock.now().getTime() } }));
      res.json({ ok: true });
    });
    kit = createStaffTestApp(getDatabase(), { extraApi: [signIn, appealRouter({ appeals, now, limit: limit.middleware })] });
  });

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    await seedTeam(getDatabase().db);
    staffCookie = await loginCookie(kit.app, TEAM.mod.username, TEAM.mod.password);
  });

  async function counts() {
    const result: Record<string, number> = {};
    for (const table of TABLES)
      result[table] = Number((await getDatabase().query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n);
    return result;
  }

  /** A browser of one visitor, from its own address. */
  async function visitorOf(discordId: string, as: 'verified' | 'appellant' = 'verified') {
    const agent = request.agent(kit.app);
    const address = `198.18.7.${++ip}`;
    await agent.post('/api/test/sign-in').set('X-Forwarded-For', address).send({ discordId, as }).expect(200);
    return {
      get: () => agent.get('/api/appeal').set('X-Forwarded-For', address),
      post: (body: unknown) =>
        agent
          .post('/api/appeal')
          .set('X-Forwarded-For', address)
          .send(body as object),
    };
  }
  const staff = {
    queue: () => request(kit.app).get('/api/admin/appeals').set('Cookie', staffCookie),
    count: () => request(kit.app).get('/api/admin/appeals/count').set('Cookie', staffCookie),
    approve: (id: number | string) => request(kit.app).post(`/api/admin/appeals/${id}/approve`).set('Cookie', staffCookie).send({}),
    reject: (id: number | string, body: unknown) =>
      request(kit.app)
        .post(`/api/admin/appeals/${id}/reject`)
        .set('Cookie', staffCookie)
        .send(body as object),
    decided: () => request(kit.app).get('/api/admin/appeals?status=decided').set('Cookie', staffCookie),
    preview: (id: number | string) => request(kit.app).get(`/api/admin/appeals/${id}/preview`).set('Cookie', staffCookie),
    ofMember: (discordId: string) => request(kit.app).get(`/api/admin/users/${discordId}/appeals`).set('Cookie', staffCookie),
    member: (discordId: string) => request(kit.app).get(`/api/admin/users/${discordId}`).set('Cookie', staffCookie),
    list: () => request(kit.app).get('/api/admin/users?filter=all&limit=50').set('Cookie', staffCookie),
  };
  const rows = async <T>(query: string, params: unknown[] = []) => (await getDatabase().query<T>(query, params)).rows;

  it('files a Limited Access appeal; staff reject it with a reason the visitor then sees', async () => {
    const member = await buildMember(getDatabase().db, { status: 'limited_access', username: 'roamer', vpnProvider: 'NordVPN' });
    const v = await visitorOf(member.discordId);
    const before = await v.get().expect(200);
    expect(before.body).toEqual({ username: 'roamer', standing: 'limited', canAppeal: true, appeal: null });

    const filed = await v.post({ message: '  I was on the train wifi, not a VPN.  ' });
    expect(filed.status).toBe(201);
    expect(filed.body.appeal).toMatchObject({ status: 'open', message: 'I was on the train wifi, not a VPN.', reason: null });
    expect((await staff.count().expect(200)).body).toEqual({ open: 1 });

    const queue = (await staff.queue().expect(200)).body;
    expect(queue.open).toBe(1);
    expect(queue.appeals[0]).toMatchObject({
      message: 'I was on the train wifi, not a VPN.',
      standing: 'limited',
      standingAtFiling: 'limited',
      member: { discordId: member.discordId, status: 'limited_access' },
      evidence: { vpnProvider: 'NordVPN' },
    });

    await staff.reject(queue.appeals[0].id, { reason: 'The address is a known VPN exit.' }).expect(200);
    const after = (await v.get().expect(200)).body;
    expect(after).toMatchObject({
      standing: 'limited',
      canAppeal: true,
      appeal: { status: 'rejected', reason: 'The address is a known VPN exit.' },
    });
    expect((await staff.count()).body).toEqual({ open: 0 });

    // already decided: 409 both ways, nothing changes
    const frozen = await counts();
    expect((await staff.reject(queue.appeals[0].id, { reason: 'again' })).status).toBe(409);
    const again = await staff.approve(queue.appeals[0].id);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('This appeal has already been decided');
    expect(await counts()).toEqual(frozen);

    const audit = await rows<{ action: string; actor_type: string }>(
      `select action, actor_type from audit_log where action like 'appeal.%' order by id`,
    );
    expect(audit).toEqual([
      { action: 'appeal.filed', actor_type: 'visitor' },
      { action: 'appeal.rejected', actor_type: 'staff' },
    ]);
    const logLines = await rows<{ text: string }>(
      `select payload->>'text' as text from discord_outbox where kind = 'log_message' order by id`,
    );
    expect(logLines.map((l) => l.text)).toEqual([
      expect.stringContaining('asked staff to review their standing (Limited Access)'),
      expect.stringContaining('rejected by staff member Mod'),
    ]);
    // the visitor's words stay out of the append-only log and the logs channel
    expect(JSON.stringify(await rows('select details from audit_log'))).not.toContain('train wifi');
    expect(JSON.stringify(logLines)).not.toContain('train wifi');
  });

  it('approving Limited Access lifts it and grants the Verified role through the outbox', async () => {
    const member = await buildMember(getDatabase().db, { status: 'limited_access', guildAccess: 'limited' });
    const v = await visitorOf(member.discordId, 'appellant');
    await v.post({ message: 'Please review' }).expect(201);
    const [appeal] = (await staff.queue()).body.appeals;
    await staff.approve(appeal.id).expect(200);
    expect(await rows(`select status, guild_access from members where id = $1`, [member.id])).toEqual([
      { status: 'verified', guild_access: 'verified' },
    ]);
    expect(await rows(`select kind, payload->'add' as add from discord_outbox where kind = 'update_roles'`)).toEqual([
      { kind: 'update_roles', add: ['verified'] },
    ]);
    expect(await rows(`select kind from discord_outbox where kind = 'unban'`)).toEqual([]); // never denied, never banned
    expect((await v.get()).body).toMatchObject({ standing: 'verified', canAppeal: false, appeal: { status: 'approved', reason: null } });
    expect(await rows(`select action from audit_log where action = 'appeal.approved'`)).toHaveLength(1);
  });

  it('approving a manual certain alt clears the override and grants the role', async () => {
    const member = await buildMember(getDatabase().db, { manualAltStatus: 'certain_alt', guildAccess: 'denied' });
    const v = await visitorOf(member.discordId);
    await v.post({ message: 'This is my only account.' }).expect(201);
    const [appeal] = (await staff.queue()).body.appeals;
    expect(appeal.standing).toBe('certain_alt');
    await staff.approve(appeal.id).expect(200);
    expect(await rows(`select manual_alt_status, guild_access from members where id = $1`, [member.id])).toEqual([
      { manual_alt_status: null, guild_access: 'verified' },
    ]);
    expect((await v.get()).body.standing).toBe('verified');
  });

  it('approving a linked certain alt dismisses its alt links and grants the role', async () => {
    const { db } = getDatabase();
    const main = await buildMember(db, { altsFound: 1 });
    const alt = await buildMember(db, { isLinkedAsAlt: true, altsFound: 1, guildAccess: 'denied' });
    await buildLink(db, main.id, alt.id);
    // weak evidence (a possible link) is never part of the case against them
    const stranger = await buildMember(db);
    await buildLink(db, stranger.id, alt.id, {
      confidence: 'possible',
      detectionMethod: 'fingerprint',
      evidence: { fingerprintMatch: true, fingerprintShared: 40 },
    });
    const v = await visitorOf(alt.discordId);
    await v.post({ message: 'My brother and I share a computer.' }).expect(201);
    const [appeal] = (await staff.queue()).body.appeals;
    expect(appeal.evidence.links).toEqual({ certain: 1, medium: 0 });
    expect(appeal.evidence.topLinks).toEqual([
      {
        discordId: main.discordId,
        username: main.username,
        confidence: 'certain',
        detectionMethod: 'both',
        why: expect.stringMatching(/\(certain\)$/),
      },
    ]);

    // the open appeal shows on the member's page and in the list
    expect((await staff.member(alt.discordId)).body.openAppealId).toBe(appeal.id);
    const listed = (await staff.list()).body.users as { discordId: string; openAppealId?: number }[];
    expect(listed.find((u) => u.discordId === alt.discordId)?.openAppealId).toBe(appeal.id);
    expect(listed.find((u) => u.discordId === main.discordId)).not.toHaveProperty('openAppealId');

    // before approving, staff see what it will do; looking changes nothing
    const link = { discordId: main.discordId, username: main.username, confidence: 'certain', detectionMethod: 'both' };
    const plan = {
      dismissedLinks: [link],
      clearedManualStatus: null,
      liftsLimitedAccess: false,
      liftsBan: true,
      roles: { add: ['verified'], remove: ['unverified', 'limited'] },
    };
    const frozen = await counts();
    expect((await staff.preview(appeal.id).expect(200)).body).toEqual(plan);
    expect(await counts()).toEqual(frozen);

    const approved = await staff.approve(appeal.id);
    expect(approved.status).toBe(200);
    // after it, what it did: in the answer, and kept with the decided appeal
    expect(approved.body.outcome).toEqual(plan);
    const [decided] = (await staff.decided().expect(200)).body.appeals;
    expect(decided).toMatchObject({
      id: appeal.id,
      status: 'approved',
      decidedByName: TEAM.mod.username,
      decisionReason: null,
      outcome: plan,
      decidedAt: expect.any(String),
    });
    const history = (await staff.ofMember(alt.discordId).expect(200)).body.appeals;
    expect(history).toEqual([
      expect.objectContaining({
        id: appeal.id,
        status: 'approved',
        standingAtFiling: 'certain_alt',
        decidedByName: TEAM.mod.username,
        outcome: plan,
      }),
    ]);
    expect((await staff.member(alt.discordId)).body).not.toHaveProperty('openAppealId');
    expect((await staff.preview(appeal.id)).status).toBe(409);
    expect((await v.get()).body.standing).toBe('verified');
    // denied at the button: a ban the certain-alt action may have made is lifted before the role change
    expect(await rows(`select kind from discord_outbox where kind in ('unban', 'update_roles') order by id`)).toEqual([
      { kind: 'unban' },
      { kind: 'update_roles' },
    ]);
    // the weak evidence never counted against them: it stays listed as it was
    expect(await rows(`select confidence, dismissed_at is not null as dismissed from alt_links order by id`)).toEqual([
      { confidence: 'certain', dismissed: true },
      { confidence: 'possible', dismissed: false },
    ]);
    expect(await rows(`select is_linked_as_alt, guild_access from members where id = $1`, [alt.id])).toEqual([
      { is_linked_as_alt: false, guild_access: 'verified' },
    ]);
    const actions = (
      await rows<{ action: string }>(
        `select action from audit_log where action like 'appeal.%' or action like 'member.alt_link%' order by id`,
      )
    ).map((r) => r.action);
    expect(actions).toEqual(['appeal.filed', 'member.alt_link_dismiss', 'appeal.approved']);
    expect((await staff.queue()).body).toEqual({ appeals: [], open: 0 });
  });

  it('keeps a rejected appeal in the decided list and the member history, with who, when and why', async () => {
    const member = await buildMember(getDatabase().db, { status: 'limited_access', username: 'roamer' });
    const v = await visitorOf(member.discordId);
    await v.post({ message: 'Train wifi.' }).expect(201);
    const [appeal] = (await staff.queue()).body.appeals;
    expect((await staff.preview(appeal.id)).body).toMatchObject({ dismissedLinks: [], liftsLimitedAccess: true, liftsBan: false });
    await staff.reject(appeal.id, { reason: 'A known VPN exit.' }).expect(200);
    expect((await staff.queue()).body.appeals).toEqual([]);
    const [decided] = (await staff.decided()).body.appeals;
    expect(decided).toMatchObject({
      id: appeal.id,
      status: 'rejected',
      decidedByName: TEAM.mod.username,
      decisionReason: 'A known VPN exit.',
      outcome: null,
      member: { discordId: member.discordId },
    });
    expect((await staff.ofMember(member.discordId)).body.appeals).toEqual([
      expect.objectContaining({ status: 'rejected', decisionReason: 'A known VPN exit.', message: 'Train wifi.' }),
    ]);
  });

  it.each([
    ['an unknown list status', () => staff.queue().query({ status: 'closed' }), 400],
    ['a preview of an appeal that does not exist', () => staff.preview(987654), 404],
    ['a preview with a bad id', () => staff.preview('abc'), 400],
    ['the appeals of a member that does not exist', () => staff.ofMember('100000000000000999'), 404],
    ['the appeals of a bad Discord ID', () => staff.ofMember('bob'), 400],
  ])('answers %s with a JSON error', async (_name, send, status) => {
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.body).toEqual(expect.objectContaining({ error: expect.any(String) }));
  });

  describe('bad input: a clear 4xx with a JSON error, nothing written', () => {
    let memberId: string;
    beforeEach(async () => {
      memberId = (await buildMember(getDatabase().db, { manualAltStatus: 'certain_alt' })).discordId;
    });

    it.each([
      ['an empty message', { message: '   ' }, 'The message cannot be empty'],
      ['no message', {}, 'The message must be text'],
      ['a message that is not text', { message: 42 }, 'The message must be text'],
      [
        'a message one character too long',
        { message: 'x'.repeat(APPEAL_MESSAGE_MAX + 1) },
        `The message can be at most ${APPEAL_MESSAGE_MAX} characters`,
      ],
      ['HTML', { message: 'Hello <b>staff</b>' }, 'The message must be plain text, without HTML'],
      ['a script', { message: '<script>alert(1)</script>' }, 'The message must be plain text, without HTML'],
      ['an unknown field', { message: 'hi', extra: true }, 'Unknown field: extra'],
    ])('%s → 400', async (_name, body, error) => {
      const before = await counts();
      const v = await visitorOf(memberId);
      const res = await v.post(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(error);
      expect(await counts()).toEqual(before);
    });

    it('accepts exactly the longest message, and text that only looks like a comparison', async () => {
      const v = await visitorOf(memberId);
      await v.post({ message: `I <3 this server ${'x'.repeat(APPEAL_MESSAGE_MAX - 17)}` }).expect(201);
    });

    it('a second appeal while one is open → 409', async () => {
      const v = await visitorOf(memberId);
      await v.post({ message: 'first' }).expect(201);
      const before = await counts();
      const second = await v.post({ message: 'second' });
      expect(second.status).toBe(409);
      expect(second.body.error).toBe('You already have an open appeal: staff will review it');
      expect(await counts()).toEqual(before);
    });

    it('a member who does not exist → 404; a verified member → 409', async () => {
      const before = await counts();
      const ghost = await visitorOf('300000000000000777');
      expect((await ghost.get()).status).toBe(404);
      const res = await ghost.post({ message: 'hello' });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatch(/No verification record/);
      const fine = await buildMember(getDatabase().db, {});
      const verified = await visitorOf(fine.discordId);
      const refused = await verified.post({ message: 'hello' });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe('Your verification was not denied or limited: there is nothing to appeal');
      expect((await verified.get()).body).toMatchObject({ standing: 'verified', canAppeal: false });
      expect((await counts()).appeals).toBe(before.appeals);
    });

    it('no session, a forged session and an expired one → 401', async () => {
      const before = await counts();
      const none = await request(kit.app).post('/api/appeal').send({ message: 'hi' });
      expect(none.status).toBe(401);
      expect(none.body.error).toBe(SIGN_IN_AGAIN);
      const forgedCookie = `gk_session=${Buffer.from(JSON.stringify({ visitor: { verified: { discordId: memberId, at: Date.now() } } })).toString('base64')}`;
      expect((await request(kit.app).post('/api/appeal').set('Cookie', forgedCookie).send({ message: 'hi' })).status).toBe(401);
      expect((await request(kit.app).get('/api/appeal').set('Cookie', forgedCookie)).status).toBe(401);
      const v = await visitorOf(memberId);
      kit.clock.advance(APPEAL_SESSION_MAX_AGE_MS + 1000);
      const expired = await v.post({ message: 'hi' });
      expect(expired.status).toBe(401);
      expect((await v.get()).status).toBe(401);
      expect(await counts()).toEqual(before);
    });

    it('a cross-site POST → 403', async () => {
      const before = await counts();
      const v = await visitorOf(memberId);
      const res = await v.post({ message: 'hi' }).set('Origin', 'https://evil.example');
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual(expect.any(String));
      expect(await counts()).toEqual(before);
    });

    it('is rate-limited: the fourth try in a row → 429', async () => {
      const v = await visitorOf(memberId);
      for (let i = 0; i < 3; i++) expect((await v.post({ message: '' })).status).toBe(400);
      const limited = await v.post({ message: 'now a good one' });
      expect(limited.status).toBe(429);
      expect(limited.body.error).toEqual(expect.any(String));
      expect((await counts()).appeals).toBe(0);
    });

    it('staff: an unknown appeal → 404, a bad id → 400, a bad reason → 400, nothing written', async () => {
      const v = await visitorOf(memberId);
      await v.post({ message: 'please' }).expect(201);
      const [appeal] = (await staff.queue()).body.appeals;
      const before = await counts();
      expect((await staff.approve(99999)).status).toBe(404);
      expect((await staff.approve('abc')).status).toBe(400);
      for (const reason of ['', '   ', '<img src=x onerror=alert(1)>', 'x'.repeat(501), 7]) {
        const res = await staff.reject(appeal.id, { reason });
        expect({ reason, status: res.status, hasError: typeof res.body.error === 'string' }).toEqual({
          reason,
          status: 400,
          hasError: true,
        });
      }
      expect((await staff.reject(appeal.id, {})).status).toBe(400);
      expect(await counts()).toEqual(before);
    });
  });

  it('appeals are erased with their member', async () => {
    const member = await buildMember(getDatabase().db, { status: 'limited_access' });
    const v = await visitorOf(member.discordId);
    await v.post({ message: 'please' }).expect(201);
    const erased = await getDatabase().db.transaction((tx) => eraseMembers(tx, { discordId: member.discordId }));
    expect(erased.appeals).toBe(1);
    expect((await counts()).appeals).toBe(0);
  });
});
