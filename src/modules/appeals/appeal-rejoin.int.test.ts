import request from 'supertest';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildFingerprint, SHORT_DISCORD_WINDOWS, startTestGatekeeper, walkVisitorFlow } from '../../test-support/gatekeeper';
import { loginCookie, seedTeam, TEAM } from '../../test-support/staff-test-kit';
import type { GatekeeperHandle } from '../../server';

jest.setTimeout(60_000);

describeEngines(
  'an approved appeal of a certain alt the button banned: unbanned, told what happens next, the rejoin gives the Verified role',
  (getDatabase) => {
    let handle: GatekeeperHandle;
    beforeAll(async () => {
      await resetDatabase(getDatabase());
      // a ban, an unban, a join and role changes on one guild: what is checked is where the alt ends up
      ({ handle } = await startTestGatekeeper(getDatabase(), { CERTAIN_ALT_ACTION: 'ban' }, SHORT_DISCORD_WINDOWS));
      await seedTeam(getDatabase().db);
    });
    afterAll(async () => handle?.stop());

    const emulator = () => handle.discord.emulator!;
    const rolesOf = (userId: string) =>
      (emulator().state.guild.members.get(userId)?.roles ?? []).map((id: string) => emulator().state.guild.roles.get(id)?.name);
    const logLines = async (discordId: string) =>
      (
        await getDatabase().query<{ text: string }>(
          `select payload->>'text' as text from discord_outbox where kind = 'log_message' and discord_id = $1 order by id`,
          [discordId],
        )
      ).rows.map((r) => r.text);
    const click = (userId: string) => {
      const button = emulator().findButton(emulator().guild.channelId('verification'), 'Complete Verification!')!;
      return emulator().clickButton({
        userId,
        channelId: emulator().guild.channelId('verification'),
        messageId: button.messageId,
        customId: button.customId,
      });
    };

    it('approving the banned alt lifts the ban, never posts a failure no retry can fix, and verifying again joins them with the Verified role', async () => {
      const device = buildFingerprint('family-laptop');
      const main = emulator().createUser({ username: 'sibling-main' });
      const alt = emulator().createUser({ username: 'sibling-alt' });
      await walkVisitorFlow(handle, { userId: main.id, fingerprint: device, confirmRules: true });
      const { agent } = await walkVisitorFlow(handle, { userId: alt.id, fingerprint: device, confirmRules: true });
      await handle.services.outboxWorker.drain();
      expect(JSON.stringify(await click(alt.id))).toContain('Verification denied');
      await handle.services.outboxWorker.drain();
      expect(emulator().state.guild.members.has(alt.id)).toBe(false);

      await agent.post('/api/appeal').send({ message: 'That is my sister, we share a laptop' }).expect(201);
      const staff = await loginCookie(handle.url, TEAM.mod.username, TEAM.mod.password);
      const [appeal] = (await request(handle.url).get('/api/admin/appeals').set('Cookie', staff).expect(200)).body.appeals;
      const approved = await request(handle.url).post(`/api/admin/appeals/${appeal.id}/approve`).set('Cookie', staff).send({}).expect(200);
      // the dashboard's answer says what happens next for someone who is not in the server
      expect(approved.body.next).toBe(
        'They get the Verified role now if they are in the server. If they were removed (kicked, or banned: the ban is lifted) or left, they rejoin by verifying again on the website, and that join gives them the Verified role.',
      );
      await handle.services.outboxWorker.drain();

      const lines = await logLines(alt.id);
      expect(lines).toContain(`✅ Appeal #${appeal.id} of <@${alt.id}> approved by staff member Mod. ${approved.body.next}`);
      // the role change met Unknown Member: said plainly, not a failure staff are asked to retry
      expect(lines).toContain(
        `ℹ️ <@${alt.id}> is not in the server, so their roles were not changed: they get the right roles when they rejoin through the website.`,
      );
      expect(lines.filter((l) => l.startsWith('❗'))).toEqual([]);
      expect((await getDatabase().query(`select kind from discord_outbox where status = 'failed'`)).rows).toEqual([]);

      // verifying again: the website joins them (the ban is gone) with the Verified role
      await walkVisitorFlow(handle, { userId: alt.id, fingerprint: device, agent, confirmRules: true });
      await handle.services.outboxWorker.drain();
      expect(rolesOf(alt.id)).toEqual(['Verified']);
      expect((await logLines(alt.id)).at(-1)).toBe(`✅ <@${alt.id}> completed website verification.`);
    });
  },
);
