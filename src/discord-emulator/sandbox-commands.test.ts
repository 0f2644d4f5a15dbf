import { ApplicationCommandOptionType, MessageFlags, PermissionFlagsBits, type Client } from 'discord.js';
import { createDiscordEmulator, type DiscordEmulator } from './index';
import { loginEmulatorClient } from './emulator-clients';

/** The sandbox view's command box, against a real discord.js bot that registers and answers commands. */
describe('sandbox view: slash-command box', () => {
  let emulator: DiscordEmulator;
  let client: Client<true>;
  let channelId: string;
  let memberId: string;
  let staffId: string;

  beforeAll(async () => {
    emulator = await createDiscordEmulator({ rateLimits: false });
    client = await loginEmulatorClient(emulator);
    channelId = emulator.guild.channelId('stream-general-chat');
    await client.application.commands.set(
      [
        { name: 'ping', description: 'Answers pong' },
        {
          name: 'lookup',
          description: 'Looks a member up',
          defaultMemberPermissions: PermissionFlagsBits.ManageGuild,
          options: [
            { name: 'user', description: 'Who', type: ApplicationCommandOptionType.User, required: true },
            { name: 'days', description: 'How far back', type: ApplicationCommandOptionType.Integer, minValue: 1, maxValue: 90 },
          ],
        },
        {
          name: 'privacy',
          description: 'Your data',
          options: [
            { name: 'show', description: 'What is kept about you', type: ApplicationCommandOptionType.Subcommand },
            {
              name: 'delete',
              description: 'Delete it',
              type: ApplicationCommandOptionType.Subcommand,
              options: [{ name: 'confirm', description: 'Sure?', type: ApplicationCommandOptionType.Boolean, required: true }],
            },
          ],
        },
      ],
      emulator.guild.id,
    );
    client.on('interactionCreate', (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      const sub = interaction.options.getSubcommand(false);
      const text =
        interaction.commandName === 'lookup'
          ? `Looked up **${interaction.options.getUser('user', true).username}** over ${interaction.options.getInteger('days') ?? 30} days`
          : `Ran ${interaction.commandName}${sub ? ` ${sub}` : ''}${sub === 'delete' ? ` confirm=${String(interaction.options.getBoolean('confirm', true))}` : ''}`;
      void interaction.reply({ content: text, flags: MessageFlags.Ephemeral });
    });
    memberId = emulator.createUser({ username: 'box-member' }).id;
    emulator.addGuildMember(memberId, ['Verified']);
    staffId = emulator.state.findUserByName('sandbox-staff')?.id ?? '';
  });

  afterAll(async () => {
    await client.destroy();
    await emulator.close();
  });

  const cookieOf = (userId: string) => `gk_sandbox_user=${userId}`;
  const get = async (path: string, userId: string) =>
    (await fetch(`${emulator.url}${path}`, { headers: { cookie: cookieOf(userId) } })).text();
  const post = (path: string, form: Record<string, string>, userId: string) =>
    fetch(`${emulator.url}${path}`, {
      method: 'POST',
      body: new URLSearchParams(form),
      headers: { cookie: cookieOf(userId) },
      redirect: 'manual',
    });
  const channelPath = () => `/sandbox/channels/${channelId}`;

  it('offers the registered commands, each subcommand as its own entry, and hides what the member may not use', async () => {
    const member = await get(channelPath(), memberId);
    expect(member).toContain('aria-label="Slash commands"');
    expect(member).toContain('/ping — Answers pong');
    expect(member).toContain('/privacy show — What is kept about you');
    expect(member).toContain('/privacy delete — Delete it');
    expect(member).not.toContain('/lookup');
    const staff = await get(channelPath(), staffId);
    expect(staff).toContain('/lookup — Looks a member up');
  });

  it("shows the chosen command's options: users to pick, numbers with their bounds, required ones marked", async () => {
    const page = await get(`${channelPath()}?command=lookup`, staffId);
    expect(page).toMatch(/<select id="command-option-user" name="opt:user" required>/);
    expect(page).toContain(`<option value="${memberId}">box-member (@box-member)</option>`);
    expect(page).toMatch(/<input type="number" id="command-option-days" name="opt:days"\s+min="1" max="90"\s*>/);
    expect(page).toContain('Send /lookup');
  });

  it('runs the command as the chosen user and shows the private reply under "used /…"', async () => {
    const sent = await post(`${channelPath()}/command`, { command: 'lookup', 'opt:user': memberId, 'opt:days': '7' }, staffId);
    expect(sent.status).toBe(303);
    const location = sent.headers.get('location') ?? '';
    expect(location).toMatch(/\?interaction=\d+&command=lookup$/);
    const page = await get(location, staffId);
    expect(page).toContain('Looked up <strong>box-member</strong> over 7 days');
    expect(page).toContain('used <code>/lookup</code>');
    expect(page).toContain('Only you can see this');
    // the reply is the staff member's alone
    expect(await get(channelPath(), memberId)).not.toContain('Looked up');
  });

  it('sends subcommands and booleans as Discord does', async () => {
    const sent = await post(`${channelPath()}/command`, { command: 'privacy delete', 'opt:confirm': 'true' }, memberId);
    const page = await get(sent.headers.get('location') ?? '', memberId);
    expect(page).toContain('Ran privacy delete confirm=true');
    expect(page).toContain('used <code>/privacy delete</code>');
  });

  it('says what is wrong, keeping the command chosen, and runs nothing', async () => {
    const before = emulator.state.interactions.size;
    const missing = await post(`${channelPath()}/command`, { command: 'lookup', 'opt:user': '' }, staffId);
    const page = await get(missing.headers.get('location') ?? '', staffId);
    expect(page).toContain('role="alert"');
    expect(page).toContain('/lookup needs a value for &quot;user&quot;.');
    expect(page).toContain('Send /lookup');
    const hidden = await post(`${channelPath()}/command`, { command: 'lookup', 'opt:user': memberId }, memberId);
    expect(decodeURIComponent(hidden.headers.get('location') ?? '')).toContain('/lookup is not a command you can use here.');
    const badUser = await post(`${channelPath()}/command`, { command: 'lookup', 'opt:user': '42' }, staffId);
    expect(decodeURIComponent(badUser.headers.get('location') ?? '')).toContain('option "user" needs a known user id');
    expect(emulator.state.interactions.size).toBe(before);
  });
});
