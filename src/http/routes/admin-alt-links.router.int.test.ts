import request from 'supertest';
import { altLinkRepository } from '../../modules/alts';
import { buildLink, buildMember } from '../../test-support/factories';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createStaffTestApp, loginCookie, seedTeam, TEAM } from '../../test-support/staff-test-kit';

const MAIN = '310000000000000001';
const ALT = '310000000000000002';
const SECOND_ALT = '310000000000000003';
const STRANGER = '310000000000000004';

describeEngines('admin alt link routes: "Not the same person" and reopen', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;
  let mod: string;
  let links: { first: number; second: number };

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    kit = createStaffTestApp(getDatabase());
    const { db } = getDatabase();
    await seedTeam(db);
    mod = await loginCookie(kit.app, 'Mod', TEAM.mod.password);
    const main = await buildMember(db, { discordId: MAIN, username: 'main' });
    const alt = await buildMember(db, { discordId: ALT, username: 'alt' });
    const secondAlt = await buildMember(db, { discordId: SECOND_ALT, username: 'second' });
    await buildMember(db, { discordId: STRANGER, username: 'stranger' });
    const first = await buildLink(db, main.id, alt.id);
    const second = await buildLink(db, main.id, secondAlt.id, { confidence: 'medium', detectionMethod: 'fingerprint' });
    await altLinkRepository.recomputeCounters(db, [main.id, alt.id, secondAlt.id]);
    links = { first: first.id, second: second.id };
  });

  const get = (path: string) => request(kit.app).get(path).set('Cookie', mod);
  const post = (path: string, body?: object) => request(kit.app).post(path).set('Cookie', mod).send(body);
  const snapshot = async () => ({
    links: (await getDatabase().query('select * from alt_links order by id')).rows,
    members: (await getDatabase().query('select discord_id, alts_found, is_linked_as_alt from members order by id')).rows,
    audit: (await getDatabase().query("select id from audit_log where action like 'member.%'")).rows,
    outbox: (await getDatabase().query('select id from discord_outbox')).rows,
  });

  it('dismisses a link: it stops counting for both members, the page shows it dismissed; reopening restores it', async () => {
    const res = await post(`/api/admin/users/${ALT}/alt-links/${links.first}/dismiss`, { reason: 'twins, seen on camera' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });

    const alt = (await get(`/api/admin/users/${ALT}`)).body;
    expect(alt).toMatchObject({ isLinkedAsAlt: false, altsFound: 0 });
    expect(alt.alts).toEqual([
      expect.objectContaining({
        linkId: links.first,
        discordId: MAIN,
        dismissed: { at: expect.any(String), byName: 'Mod', reason: 'twins, seen on camera' },
      }),
    ]);
    const main = (await get(`/api/admin/users/${MAIN}`)).body;
    expect(main).toMatchObject({ altsFound: 1 });
    // open links first, the dismissed one last
    expect(main.alts.map((a: { discordId: string; dismissed: unknown }) => [a.discordId, a.dismissed !== null])).toEqual([
      [SECOND_ALT, false],
      [ALT, true],
    ]);
    const certain = (await get('/api/admin/users?filter=certain_alts')).body;
    expect(certain.users).toEqual([]);

    const reopened = await post(`/api/admin/users/${MAIN}/alt-links/${links.first}/reopen`);
    expect(reopened.status).toBe(200);
    expect((await get(`/api/admin/users/${ALT}`)).body).toMatchObject({
      isLinkedAsAlt: true,
      altsFound: 1,
      alts: [expect.objectContaining({ dismissed: null })],
    });
    expect((await get('/api/admin/users?filter=certain_alts')).body.users.map((u: { discordId: string }) => u.discordId)).toEqual([ALT]);
    const audit = await getDatabase().query<{ action: string; actor_name: string }>(
      "select action, actor_name from audit_log where action like 'member.%' order by id",
    );
    expect(audit.rows).toEqual([
      { action: 'member.alt_link_dismiss', actor_name: 'Mod' },
      { action: 'member.alt_link_reopen', actor_name: 'Mod' },
    ]);
  });

  it('answers bad input with a JSON error and changes nothing', async () => {
    await post(`/api/admin/users/${MAIN}/alt-links/${links.second}/dismiss`);
    const before = await snapshot();
    const cases: [string, string, object | undefined, number, string][] = [
      ['unknown member', `/api/admin/users/310000000000000077/alt-links/${links.first}/dismiss`, undefined, 404, 'User not found'],
      ['unknown link', `/api/admin/users/${MAIN}/alt-links/999999/dismiss`, undefined, 404, 'Alt link not found'],
      ["another member's link", `/api/admin/users/${STRANGER}/alt-links/${links.first}/dismiss`, undefined, 404, 'Alt link not found'],
      ["another member's link (reopen)", `/api/admin/users/${ALT}/alt-links/${links.second}/reopen`, undefined, 404, 'Alt link not found'],
      [
        'already dismissed',
        `/api/admin/users/${SECOND_ALT}/alt-links/${links.second}/dismiss`,
        undefined,
        409,
        'This link is already dismissed',
      ],
      ['reopening an open link', `/api/admin/users/${MAIN}/alt-links/${links.first}/reopen`, undefined, 409, 'This link is not dismissed'],
      [
        'a link id that is not a number',
        `/api/admin/users/${MAIN}/alt-links/abc/dismiss`,
        undefined,
        400,
        'Link ID must be a positive whole number',
      ],
      ['link id 0', `/api/admin/users/${MAIN}/alt-links/0/reopen`, undefined, 400, 'Link ID must be a positive whole number'],
      [
        'a link id beyond any row',
        `/api/admin/users/${MAIN}/alt-links/99999999999999999999/dismiss`,
        undefined,
        400,
        'Link ID must be a positive whole number',
      ],
      [
        'a bad Discord ID',
        `/api/admin/users/nope/alt-links/${links.first}/dismiss`,
        undefined,
        400,
        'Discord ID must be a numeric Discord user ID',
      ],
      [
        'a reason too long',
        `/api/admin/users/${MAIN}/alt-links/${links.first}/dismiss`,
        { reason: 'x'.repeat(501) },
        400,
        'Reason must be at most 500 characters',
      ],
      ['a reason that is not text', `/api/admin/users/${MAIN}/alt-links/${links.first}/dismiss`, { reason: 5 }, 400, 'Reason must be text'],
    ];
    for (const [name, path, body, status, error] of cases) {
      const res = await post(path, body);
      expect({ name, status: res.status, error: res.body.error, json: res.type }).toEqual({
        name,
        status,
        error,
        json: 'application/json',
      });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('needs a staff session', async () => {
    const res = await request(kit.app).post(`/api/admin/users/${MAIN}/alt-links/${links.first}/dismiss`).send({});
    expect(res.status).toBe(401);
    expect((await snapshot()).audit).toEqual([]);
  });
});
