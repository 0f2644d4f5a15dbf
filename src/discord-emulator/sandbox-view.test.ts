import { ActionRowBuilder, ButtonBuilder, ButtonStyle, MessageFlags, type Client, type TextChannel } from 'discord.js';
import { createDiscordEmulator, type DiscordEmulator } from './index';
import { loginEmulatorClient } from './emulator-clients';

describe('sandbox web view', () => {
  let emulator: DiscordEmulator;
  let client: Client<true>;
  let channelId: string;
  let memberId: string;

  beforeAll(async () => {
    emulator = await createDiscordEmulator({ rateLimits: false });
    client = await loginEmulatorClient(emulator);
    channelId = emulator.guild.channelId('verification');
    client.on('interactionCreate', (interaction) => {
      if (!interaction.isButton() || !interaction.inCachedGuild()) return;
      void (async () => {
        await interaction.member.roles.add(emulator.guild.roleId('Verified'));
        await interaction.reply({ content: 'You are **verified**!', flags: MessageFlags.Ephemeral });
      })();
    });
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId('verify').setLabel('Complete Verification!').setStyle(ButtonStyle.Success),
      new ButtonBuilder().setURL('https://example.com/rules').setLabel('Rules').setStyle(ButtonStyle.Link),
    );
    await (client.channels.cache.get(channelId) as TextChannel).send({
      embeds: [{ title: 'Verification', description: 'Click below' }],
      components: [row],
    });
    memberId = emulator.createUser({ username: 'web-visitor' }).id;
    emulator.addGuildMember(memberId, ['Unverified']);
  });

  afterAll(async () => {
    await client.destroy();
    await emulator.close();
  });

  const get = (path: string, cookie?: string) => fetch(`${emulator.url}${path}`, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
  const post = (path: string, form: Record<string, string>, cookie?: string) =>
    fetch(`${emulator.url}${path}`, {
      method: 'POST',
      body: new URLSearchParams(form),
      headers: cookie ? { cookie } : {},
      redirect: 'manual',
    });

  it('lists the channels', async () => {
    const page = await (await get('/sandbox')).text();
    for (const name of ['verification', 'rules', 'raffle-confirmation-chat', 'stream-general-chat', 'logs'])
      expect(page).toContain(`# ${name}`);
    expect(page).toContain('Sandbox mode');
    expect(emulator.sandboxUrl(channelId)).toBe(`${emulator.url}/sandbox/channels/${channelId}`);
  });

  it('renders the panel with real buttons and the embed', async () => {
    const page = await (await get(`/sandbox/channels/${channelId}`)).text();
    expect(page).toMatch(/<button type="submit" name="custom_id" value="verify"[^>]*>Complete Verification!<\/button>/);
    expect(page).toContain('href="https://example.com/rules"');
    expect(page).toContain('<h3>Verification</h3>');
    expect(page).toContain('Choose who you are');
  });

  it('clicks a button as the chosen user and shows the ephemeral reply and new roles', async () => {
    const chosen = await post('/sandbox/identity', { user: memberId, return_to: `/sandbox/channels/${channelId}` });
    expect(chosen.status).toBe(303);
    const cookie = (chosen.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toBe(`gk_sandbox_user=${memberId}`);

    const messageId = emulator.findButton(channelId, 'Complete Verification!')?.messageId ?? '';
    const clicked = await post(`/sandbox/channels/${channelId}/click`, { message_id: messageId, custom_id: 'verify' }, cookie);
    expect(clicked.status).toBe(303);
    const location = clicked.headers.get('location') ?? '';
    expect(location).toMatch(/\?interaction=\d+$/);

    const page = await (await get(location, cookie)).text();
    expect(page).toContain('You are <strong>verified</strong>!');
    expect(page).toContain('Only you can see this');
    expect(page).toContain('Gatekeeper replied.');
    expect(page).toMatch(/Your roles:.*Unverified.*Verified/s);

    const live = await (await get(`/sandbox/channels/${channelId}/live`, cookie)).text();
    expect(live).toContain('Only you can see this');
    // Someone else does not see the ephemeral reply.
    const other = await (
      await get(`/sandbox/channels/${channelId}`, `gk_sandbox_user=${emulator.state.findUserByName('sandbox-staff')?.id ?? ''}`)
    ).text();
    expect(other).not.toContain('You are <strong>verified</strong>!');
  });

  it('records who a message pinged by its allowed_mentions, and marks the message that pinged a role', async () => {
    const staff = emulator.guild.roleId('Staff');
    const logs = emulator.guild.channelId('logs');
    const channel = client.channels.cache.get(logs) as TextChannel;
    const pinging = await channel.send({ content: `<@&${staff}> raid`, allowedMentions: { parse: [], roles: [staff] } });
    const quiet = await channel.send({ content: `<@&${staff}> no ping <@${memberId}>`, allowedMentions: { parse: [] } });
    const stored = (id: string) => emulator.state.messages(logs).find((m) => m.id === id)!;
    expect([stored(pinging.id).mention_roles, stored(pinging.id).mentions]).toEqual([[staff], []]);
    expect([stored(quiet.id).mention_roles, stored(quiet.id).mentions]).toEqual([[], []]);

    const page = await (await get(`/sandbox/channels/${logs}`)).text();
    const article = (id: string) => {
      const at = page.indexOf(`data-message-id="${id}"`);
      return page.slice(page.lastIndexOf('<article', at), page.indexOf('</article>', at));
    };
    expect(article(pinging.id)).toContain('<b class="mention-role">@Staff</b>');
    expect(article(pinging.id)).toMatch(/class="message\s+pinged"/);
    expect(article(pinging.id)).toContain('Pinged @Staff');
    expect(article(quiet.id)).toContain('<b class="mention-role">@Staff</b>');
    expect(article(quiet.id)).not.toContain('Pinged');
  });

  it('explains what went wrong instead of failing silently', async () => {
    const noIdentity = await post(`/sandbox/channels/${channelId}/click`, { message_id: '1', custom_id: 'verify' });
    expect(decodeURIComponent(noIdentity.headers.get('location') ?? '')).toContain('Choose who you are first.');
    const stranger = emulator.createUser({ username: 'not-a-member' });
    const notMember = await post(
      `/sandbox/channels/${channelId}/click`,
      { message_id: '1', custom_id: 'verify' },
      `gk_sandbox_user=${stranger.id}`,
    );
    const page = await (await get(notMember.headers.get('location') ?? '', `gk_sandbox_user=${stranger.id}`)).text();
    expect(page).toContain('role="alert"');
    expect(page).toContain('not a member');
    expect((await get('/sandbox/channels/1234567890123456789')).status).toBe(404);
  });
});
