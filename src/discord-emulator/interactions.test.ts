import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  MessageFlags,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
  type Client,
  type Interaction,
  type TextChannel,
} from 'discord.js';
import { InteractionResponseType } from 'discord-api-types/v10';
import { createDiscordEmulator, type DiscordEmulator } from './index';
import { loginEmulatorClient } from './emulator-clients';

const commands = [
  new SlashCommandBuilder()
    .setName('lookup')
    .setDescription('Look a member up')
    .addUserOption((o) => o.setName('member').setDescription('Who').setRequired(true))
    .addStringOption((o) => o.setName('reason').setDescription('Why'))
    .addIntegerOption((o) => o.setName('days').setDescription('How far back'))
    .addBooleanOption((o) => o.setName('public').setDescription('Show to everyone')),
  new SlashCommandBuilder()
    .setName('staff')
    .setDescription('Staff tools')
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
    .addSubcommand((s) =>
      s
        .setName('note')
        .setDescription('Add a note')
        .addStringOption((o) => o.setName('text').setDescription('Note').setRequired(true)),
    ),
].map((command) => command.toJSON());

/** A tiny bot written against discord.js only, to show the emulator's wire formats satisfy it. */
function attachBot(client: Client, seen: Interaction[]): void {
  client.on('interactionCreate', (interaction) => {
    seen.push(interaction);
    void (async () => {
      if (interaction.isButton()) {
        switch (interaction.customId) {
          case 'verify':
            await interaction.reply({ content: `Verified ${interaction.user.username}`, flags: MessageFlags.Ephemeral });
            break;
          case 'slow':
            await interaction.deferReply({ flags: MessageFlags.Ephemeral });
            await new Promise((resolve) => setTimeout(resolve, 300));
            await interaction.editReply('Done after thinking');
            break;
          case 'update':
            await interaction.update({ content: 'Panel updated', components: [] });
            break;
          case 'chatty':
            await interaction.reply({ content: 'First', flags: MessageFlags.Ephemeral });
            await interaction.followUp({ content: 'Second', flags: MessageFlags.Ephemeral });
            break;
          case 'silent':
            break; // never answers: Discord shows "This interaction failed"
        }
      } else if (interaction.isChatInputCommand()) {
        await answerCommand(interaction);
      }
    })();
  });
}

async function answerCommand(interaction: ChatInputCommandInteraction): Promise<void> {
  if (interaction.commandName === 'lookup') {
    const member = interaction.options.getUser('member', true);
    const reason = interaction.options.getString('reason') ?? 'none';
    const days = interaction.options.getInteger('days') ?? 0;
    const isPublic = interaction.options.getBoolean('public') ?? false;
    await interaction.reply({
      content: `${member.username}|${reason}|${days}|${String(isPublic)}`,
      ...(isPublic ? {} : { flags: MessageFlags.Ephemeral }),
    });
  } else if (interaction.commandName === 'staff') {
    const canManage = interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild) ?? false;
    await interaction.reply({
      content: `${interaction.options.getSubcommand()}:${interaction.options.getString('text', true)}:${String(canManage)}`,
      flags: MessageFlags.Ephemeral,
    });
  }
}

describe('Discord emulator interactions through discord.js', () => {
  let emulator: DiscordEmulator;
  let client: Client<true>;
  let seen: Interaction[];
  let panelId: string;
  let channelId: string;
  let memberId: string;

  beforeAll(async () => {
    emulator = await createDiscordEmulator({ rateLimits: false, interactionAckTimeoutMs: 500 });
    client = await loginEmulatorClient(emulator);
    seen = [];
    attachBot(client, seen);
    await client.application.commands.set(commands, emulator.guild.id);
    channelId = emulator.guild.channelId('verification');
    const channel = client.channels.cache.get(channelId) as TextChannel;
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      ...['verify', 'slow', 'chatty', 'silent'].map((id) =>
        new ButtonBuilder()
          .setCustomId(id)
          .setLabel(id === 'verify' ? 'Complete Verification!' : id)
          .setStyle(ButtonStyle.Primary),
      ),
    );
    const panel = await channel.send({ content: 'Verification panel', components: [row] });
    panelId = panel.id;
    memberId = emulator.state.findUserByName('sandbox-member')?.id ?? '';
  });

  afterAll(async () => {
    await client.destroy();
    await emulator.close();
  });

  it('keeps the posted panel with its components in state', () => {
    const [message] = emulator.state.messages(channelId);
    expect(message?.content).toBe('Verification panel');
    expect(emulator.findButton(channelId, 'Complete Verification!')).toEqual({ messageId: panelId, customId: 'verify' });
  });

  it('delivers a button click to interactionCreate and records the ephemeral reply', async () => {
    const result = await emulator.clickButton({ userId: memberId, channelId, messageId: panelId, customId: 'verify' });
    expect(result).toMatchObject({
      acknowledged: true,
      failed: false,
      ephemeral: true,
      callbackType: InteractionResponseType.ChannelMessageWithSource,
    });
    expect(result.reply?.content).toBe('Verified sandbox-member');
    expect(result.text).toBe('Verified sandbox-member');
    // Ephemeral replies are not channel messages.
    expect(emulator.state.messages(channelId).map((m) => m.content)).not.toContain('Verified sandbox-member');

    const interaction = seen.at(-1);
    expect(interaction?.isButton()).toBe(true);
    expect(interaction?.inGuild() && interaction.member.roles).toBeTruthy();
    expect(interaction?.guildId).toBe(emulator.guild.id);
  });

  it('waits for a deferred reply to be edited', async () => {
    const result = await emulator.clickButton({ userId: memberId, channelId, messageId: panelId, customId: 'slow' });
    expect(result.callbackType).toBe(InteractionResponseType.DeferredChannelMessageWithSource);
    expect(result.reply?.content).toBe('Done after thinking');
    expect((result.reply?.flags ?? 0) & MessageFlags.Loading).toBe(0);
  });

  it('collects follow-ups', async () => {
    const result = await emulator.clickButton({ userId: memberId, channelId, messageId: panelId, customId: 'chatty' });
    expect(result.messages.map((m) => m.content)).toEqual(['First', 'Second']);
  });

  it('reports a failed interaction when the bot never answers', async () => {
    const result = await emulator.clickButton({ userId: memberId, channelId, messageId: panelId, customId: 'silent' });
    expect(result).toMatchObject({ acknowledged: false, failed: true, reply: null });
  });

  it('updates the component message for callback type 7', async () => {
    const channel = client.channels.cache.get(channelId) as TextChannel;
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId('update').setLabel('Update me').setStyle(ButtonStyle.Secondary),
    );
    const message = await channel.send({ content: 'Before', components: [row] });
    const result = await emulator.clickButton({ userId: memberId, channelId, messageId: message.id, customId: 'update' });
    expect(result.updatedMessage?.content).toBe('Panel updated');
    expect(emulator.state.findMessage(channelId, message.id)?.components).toEqual([]);
  });

  it('refuses clicks on buttons that do not exist', async () => {
    await expect(emulator.clickButton({ userId: memberId, channelId, messageId: panelId, customId: 'nope' })).rejects.toThrow(
      /no button "nope"/,
    );
  });

  it('runs a slash command whose options discord.js can read', async () => {
    const staffId = emulator.state.findUserByName('sandbox-staff')?.id ?? '';
    const result = await emulator.runSlashCommand({
      userId: staffId,
      channelId,
      name: 'lookup',
      options: { member: memberId, reason: 'spam', days: 7, public: true },
    });
    expect(result.reply?.content).toBe('sandbox-member|spam|7|true');
    expect(result.ephemeral).toBe(false);
    expect(emulator.state.messages(channelId).at(-1)?.content).toBe('sandbox-member|spam|7|true');
    const interaction = seen.at(-1);
    expect(interaction?.isChatInputCommand()).toBe(true);
  });

  it('runs subcommands and carries member permissions from roles', async () => {
    const staffId = emulator.state.findUserByName('sandbox-staff')?.id ?? '';
    const result = await emulator.runSlashCommand({
      userId: staffId,
      channelId,
      name: 'staff',
      subcommand: 'note',
      options: { text: 'hello' },
    });
    expect(result.reply?.content).toBe('note:hello:true');

    // A plain member cannot see a Manage Guild command; forcing it shows the bot's own check.
    await expect(
      emulator.runSlashCommand({ userId: memberId, channelId, name: 'staff', subcommand: 'note', options: { text: 'x' } }),
    ).rejects.toThrow(/hidden/);
    const forced = await emulator.runSlashCommand({
      userId: memberId,
      channelId,
      name: 'staff',
      subcommand: 'note',
      options: { text: 'x' },
      ignoreCommandPermissions: true,
    });
    expect(forced.reply?.content).toBe('note:x:false');

    emulator.setRolePermissions('Verified', PermissionFlagsBits.ManageGuild);
    const granted = await emulator.runSlashCommand({
      userId: memberId,
      channelId,
      name: 'staff',
      subcommand: 'note',
      options: { text: 'y' },
    });
    expect(granted.reply?.content).toBe('note:y:true');
    emulator.setRolePermissions('Verified', 0n);
  });

  it('validates slash command input like the Discord client would', async () => {
    await expect(emulator.runSlashCommand({ userId: memberId, channelId, name: 'lookup', options: {} })).rejects.toThrow(
      /missing required option/,
    );
    await expect(emulator.runSlashCommand({ userId: memberId, channelId, name: 'nope' })).rejects.toThrow(/not registered/);
  });

  it('rejects a second acknowledgement with 40060', async () => {
    const pending = emulator.clickButton({ userId: memberId, channelId, messageId: panelId, customId: 'verify' });
    const result = await pending;
    const record = emulator.state.interactions.get(result.interactionId);
    const response = await fetch(`${emulator.apiBase}/v10/interactions/${result.interactionId}/${record?.token ?? ''}/callback`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 4, data: { content: 'again' } }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 40060 });
  });

  it('supports with_response=true callbacks (withResponse in discord.js)', async () => {
    const user = emulator.createUser({ username: 'raw-caller' });
    emulator.addGuildMember(user.id);
    // The test bot ignores 'silent', so this test answers the interaction over raw REST itself.
    const detached = emulator.clickButton({ userId: user.id, channelId, messageId: panelId, customId: 'silent' });
    const record = [...emulator.state.interactions.values()].at(-1);
    const response = await fetch(
      `${emulator.apiBase}/v10/interactions/${record?.id ?? ''}/${record?.token ?? ''}/callback?with_response=true`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ type: 4, data: { content: 'raw reply', flags: 64 } }),
      },
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      interaction: { id: string; response_message_ephemeral: boolean };
      resource: { type: number; message: { content: string } };
    };
    expect(body.interaction).toMatchObject({ id: record?.id, response_message_ephemeral: true });
    expect(body.resource).toMatchObject({ type: 4, message: { content: 'raw reply' } });
    expect((await detached).reply?.content).toBe('raw reply');
  });
});
