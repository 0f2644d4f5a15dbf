import { ButtonStyle, ComponentType, type APIMessage } from 'discord-api-types/v10';
import { systemClock } from '../../clock';
import { createAppealsService } from '../../modules/appeals';
import { listAudit } from '../../modules/audit';
import { ALREADY_REMOVED_FROM_CARD, createMembersService } from '../../modules/members';
import type { LogCard } from '../../modules/outbox';
import { describeEngines } from '../../test-support/database';
import { buildLink, buildMember } from '../../test-support/factories';
import { SHORT_DISCORD_WINDOWS } from '../../test-support/gatekeeper';
import { countRows, useSlashCommandServer } from '../../test-support/slash-commands';
import { STAFF_BUTTON_REFUSAL } from '../bot/interaction-dispatcher';
import { CARD_REJECT_REASON } from './log-card-buttons';

jest.setTimeout(60_000);

describeEngines('buttons on the logs channel cards', (getDatabase) => {
  // cards posted to one #logs channel, then role changes and kicks: what is checked is what each button does
  const server = useSlashCommandServer(getDatabase, {}, SHORT_DISCORD_WINDOWS);
  const db = () => getDatabase().db;
  const kit = () => server.kit;
  const logs = () => kit().channelId('logs');
  const member = async (discordId: string) =>
    (
      await getDatabase().query<{ guild_access: string; rules_confirmed: boolean }>(
        'select guild_access, rules_confirmed from members where discord_id = $1',
        [discordId],
      )
    ).rows[0];
  const services = () => {
    const outbox = server.handle.services.outbox;
    const members = createMembersService({ database: getDatabase(), clock: systemClock, outbox });
    return { members, appeals: createAppealsService({ database: getDatabase(), clock: systemClock, outbox, altLinks: members }) };
  };

  /** Queues a log line with a card, lets the worker post it, and returns the card's message. */
  async function postCard(
    text: string,
    card: LogCard,
    event: 'limited_access' | 'alt_detected' | 'appeal' = 'limited_access',
  ): Promise<APIMessage> {
    await server.handle.services.outbox.enqueue(db(), { kind: 'log_message', event, discordId: card.discordId, text, card });
    return latestCard(text);
  }
  async function latestCard(text: string): Promise<APIMessage> {
    await kit().drain();
    const message = kit()
      .emulator.state.messages(logs())
      .findLast((m) => m.embeds.some((e) => e.description === text));
    if (!message) throw new Error(`no card "${text}" in #logs`);
    return message;
  }
  const current = (message: APIMessage) =>
    kit()
      .emulator.state.messages(logs())
      .find((m) => m.id === message.id)!;
  const buttonsOf = (message: APIMessage) =>
    message.components!.flatMap((row) => (row.type === ComponentType.ActionRow ? row.components : []));
  const customId = (message: APIMessage, action: string) => {
    const found = buttonsOf(message).find(
      (b) => b.type === ComponentType.Button && 'custom_id' in b && b.custom_id.split(':')[1] === action,
    );
    if (!found || !('custom_id' in found)) throw new Error(`no ${action} button`);
    return found.custom_id;
  };
  const click = (userId: string, message: APIMessage, action: string) =>
    kit().emulator.clickButton(
      { userId, channelId: logs(), messageId: message.id, customId: customId(message, action) },
      { timeoutMs: 30_000 },
    );

  it('a card carries its buttons and a link to the dashboard page; Verify by staff changes the member, audits the Discord user and marks the card', async () => {
    const user = kit().newMember('carded', ['Limited Access']);
    await buildMember(db(), { discordId: user.id, username: 'carded', status: 'limited_access', guildAccess: 'limited' });
    const message = await postCard(`🛡️ <@${user.id}> verified on the website behind a VPN: Limited Access only.`, {
      for: 'member',
      discordId: user.id,
    });
    expect(buttonsOf(message).map((b) => ('label' in b ? b.label : ''))).toEqual(['Verify', 'Deny / Kick', 'Ban', 'Dashboard']);
    const link = buttonsOf(message).at(-1)!;
    expect(link.type === ComponentType.Button && link.style === ButtonStyle.Link && link.url).toBe(
      `${server.handle.services.websiteUrl}/admin/user/${user.id}`,
    );

    const result = await click(kit().staffId, message, 'verify');
    expect(result.ephemeral).toBe(true);
    expect(result.text).toBe(`✅ Verified: <@${user.id}>.`);
    expect((await member(user.id))?.guild_access).toBe('verified');
    const audit = (await listAudit(db(), { target: user.id, action: 'member.manual_verify' })).entries;
    expect(audit.map((e) => [e.actorType, e.actorId])).toEqual([['discord', kit().staffId]]);

    const after = current(message);
    expect(after.embeds[0]!.fields).toEqual([{ name: 'Handled', value: `✅ Verified by <@${kit().staffId}> (sandbox-staff)` }]);
    expect(buttonsOf(after).map((b) => ('disabled' in b ? Boolean(b.disabled) : false))).toEqual([true, true, true, false]);
    await kit().drain();
    expect(kit().roleNames(user.id)).toContain('Verified');
  });

  it('a member without the Staff role or Manage Server is refused and nothing changes', async () => {
    const user = kit().newMember('notforyou');
    await buildMember(db(), { discordId: user.id, username: 'notforyou', guildAccess: 'pending' });
    const message = await postCard(`✅ <@${user.id}> completed website verification.`, { for: 'member', discordId: user.id });
    const before = await countRows(getDatabase());
    const result = await click(kit().plainId, message, 'ban');
    expect(result.ephemeral).toBe(true);
    expect(result.text).toBe(STAFF_BUTTON_REFUSAL);
    expect(await countRows(getDatabase())).toEqual(before);
    expect(current(message).embeds[0]!.fields ?? []).toEqual([]);
  });

  it('a stale button (the member was deleted since) says so and changes nothing', async () => {
    const user = kit().newMember('gonesince');
    await buildMember(db(), { discordId: user.id, username: 'gonesince' });
    const message = await postCard(`✅ <@${user.id}> completed website verification (stale).`, { for: 'member', discordId: user.id });
    await getDatabase().query('delete from members where discord_id = $1', [user.id]);
    const before = await countRows(getDatabase());
    const result = await click(kit().staffId, message, 'kick');
    expect(result.text).toBe(`<@${user.id}> has no verification record any more: nothing changed.`);
    expect(await countRows(getDatabase())).toEqual(before);
  });

  it('an appeal already decided on the dashboard: Approve answers so and changes nothing', async () => {
    const user = kit().newMember('appealer', ['Limited Access']);
    await buildMember(db(), { discordId: user.id, username: 'appealer', status: 'limited_access', guildAccess: 'limited' });
    const { appeals } = services();
    await appeals.file(user.id, 'I was on my school network.');
    const message = await latestCard(
      `📨 <@${user.id}> asked staff to review their standing (Limited Access): appeal #${(await appeals.queue()).appeals.find((a) => a.member.discordId === user.id)!.id} is in the dashboard's Appeals queue.`,
    );
    expect(buttonsOf(message).map((b) => ('label' in b ? b.label : ''))).toEqual(['Approve appeal', 'Reject appeal', 'Dashboard']);
    const appealId = Number(customId(message, 'approve').split(':')[4]);
    await appeals.reject({ kind: 'discord', discordId: kit().staffId, username: 'sandbox-staff' }, appealId, 'No.');
    const before = await countRows(getDatabase());
    const result = await click(kit().staffId, message, 'approve');
    expect(result.text).toBe('This appeal has already been decided: nothing changed.');
    expect(await countRows(getDatabase())).toEqual(before);
  });

  it('Reject on a card decides the appeal with the fixed reason, audited as the Discord user', async () => {
    const user = kit().newMember('appealer2', ['Limited Access']);
    await buildMember(db(), { discordId: user.id, username: 'appealer2', status: 'limited_access', guildAccess: 'limited' });
    const { appeals } = services();
    await appeals.file(user.id, 'Please.');
    const id = (await appeals.queue()).appeals.find((a) => a.member.discordId === user.id)!.id;
    const message = await latestCard(
      `📨 <@${user.id}> asked staff to review their standing (Limited Access): appeal #${id} is in the dashboard's Appeals queue.`,
    );
    const result = await click(kit().staffId, message, 'reject');
    expect(result.text).toBe(`❌ Appeal rejected: appeal #${id} of <@${user.id}>.`);
    expect((await appeals.visitorState(user.id))?.appeal).toMatchObject({ status: 'rejected', reason: CARD_REJECT_REASON });
    const audit = (await listAudit(db(), { target: user.id, action: 'appeal.rejected' })).entries;
    expect(audit.map((e) => [e.actorType, e.actorId])).toEqual([['discord', kit().staffId]]);
  });

  it('Not the same person dismisses the link between the alt and its main; pressed again it is refused', async () => {
    const main = await buildMember(db(), { username: 'mainacct' });
    const altUser = kit().newMember('altacct');
    const alt = await buildMember(db(), { discordId: altUser.id, username: 'altacct', isLinkedAsAlt: true });
    await buildLink(db(), main.id, alt.id, { confidence: 'certain', detectionMethod: 'both' });
    const message = await postCard(
      `🔎 Alt detected: <@${alt.discordId}> is a certain-confidence alt of <@${main.discordId}> (both).`,
      { for: 'alt', discordId: alt.discordId, mainId: main.discordId },
      'alt_detected',
    );
    expect(buttonsOf(message)).toHaveLength(5);
    const [first, second] = await Promise.all([click(kit().staffId, message, 'notsame'), click(kit().staffId, message, 'notsame')]);
    const texts = [first.text, second.text].sort();
    expect(texts).toEqual(
      ['This link is already dismissed: nothing changed.', `🔗 Marked not the same person: <@${alt.discordId}>.`].sort(),
    );
    const audit = (await listAudit(db(), { target: alt.discordId, action: 'member.alt_link_dismiss' })).entries;
    expect(audit).toHaveLength(1);
  });

  it('the same Kick pressed twice at once kicks once; the other press is refused', async () => {
    const user = kit().newMember('twice');
    await buildMember(db(), { discordId: user.id, username: 'twice', guildAccess: 'verified' });
    const message = await postCard(`✅ <@${user.id}> completed website verification (twice).`, { for: 'member', discordId: user.id });
    const [a, b] = await Promise.all([click(kit().staffId, message, 'kick'), click(kit().staffId, message, 'ban')]);
    const texts = [a.text, b.text];
    expect(texts.filter((t) => t === `${ALREADY_REMOVED_FROM_CARD}: nothing changed.`)).toHaveLength(1);
    expect(texts.filter((t) => t.startsWith('⛔ Denied and kicked') || t.startsWith('🔨 Denied and banned'))).toHaveLength(1);
    const removals = await getDatabase().query<{ n: string | number }>(
      "select count(*) as n from discord_outbox where discord_id = $1 and kind in ('kick', 'ban')",
      [user.id],
    );
    expect(Number(removals.rows[0]!.n)).toBe(1);
    expect((await member(user.id))?.guild_access).toBe('denied');
  });

  it('the same Verify pressed twice at once verifies once', async () => {
    const user = kit().newMember('verifytwice', ['Limited Access']);
    await buildMember(db(), { discordId: user.id, username: 'verifytwice', status: 'limited_access', guildAccess: 'limited' });
    const message = await postCard(`🛡️ <@${user.id}> verified on the website behind a VPN (twice).`, { for: 'member', discordId: user.id });
    const [a, b] = await Promise.all([click(kit().staffId, message, 'verify'), click(kit().staffId, message, 'verify')]);
    expect([a.text, b.text].sort()).toEqual([`✅ Verified: <@${user.id}>.`, 'User is already verified: nothing changed.'].sort());
    const audit = (await listAudit(db(), { target: user.id, action: 'member.manual_verify' })).entries;
    expect(audit).toHaveLength(1);
  });
});
