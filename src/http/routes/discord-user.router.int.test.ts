import request from 'supertest';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createStaffTestApp, loginCookie, seedTeam, TEAM } from '../../test-support/staff-test-kit';

describeEngines('GET /api/discord/user/:discordId', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;
  let mod: string;

  beforeAll(async () => {
    await resetDatabase(getDatabase());
    kit = createStaffTestApp(getDatabase());
    await seedTeam(getDatabase().db);
    mod = await loginCookie(kit.app, 'Mod', TEAM.mod.password);
    kit.discordUsers.users.set('111111111111111111', {
      username: 'found',
      avatarUrl: 'https://cdn.discordapp.com/avatars/111111111111111111/a.png',
    });
    kit.discordUsers.unreachable.add('222222222222222222');
  });

  const lookup = (id: string) => request(kit.app).get(`/api/discord/user/${id}`).set('Cookie', mod);

  it('returns the username and avatar', async () => {
    const res = await lookup('111111111111111111');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ username: 'found', avatarUrl: 'https://cdn.discordapp.com/avatars/111111111111111111/a.png' });
  });

  it('answers 404 Discord user not found', async () => {
    const res = await lookup('333333333333333333');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Discord user not found');
  });

  it('answers 503 when Discord cannot be reached', async () => {
    const res = await lookup('222222222222222222');
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('Discord is unreachable, try again later');
  });

  it.each([['abc'], ['12345'], ['1234567890123456789012']])('answers 400 for %s', async (id) => {
    const res = await lookup(id);
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('discordId');
  });
});
