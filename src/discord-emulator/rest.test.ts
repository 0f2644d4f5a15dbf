import { DiscordAPIError, REST } from '@discordjs/rest';
import {
  ButtonStyle,
  ComponentType,
  Routes,
  type APIGuildMember,
  type APIMessage,
  type APIUser,
  type RESTPostOAuth2AccessTokenResult,
} from 'discord-api-types/v10';
import { createDiscordEmulator, type DiscordEmulator } from './index';
import { createEmulatorRest } from './emulator-clients';

const REDIRECT = 'http://127.0.0.1:3000/oauth/callback';

async function accessTokenFor(emulator: DiscordEmulator, userId: string, scope = 'identify guilds.join'): Promise<string> {
  const code = emulator.issueAuthorizationCode({ userId, clientId: emulator.application.clientId, redirectUri: REDIRECT, scope });
  const rest = new REST({ api: emulator.apiBase });
  const tokens = (await rest.post(Routes.oauth2TokenExchange(), {
    auth: false,
    passThroughBody: true,
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: emulator.application.clientId,
      client_secret: emulator.application.clientSecret,
    }),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  })) as RESTPostOAuth2AccessTokenResult;
  return tokens.access_token;
}

async function apiError(promise: Promise<unknown>): Promise<DiscordAPIError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DiscordAPIError) return error;
    throw error;
  }
  throw new Error('expected a DiscordAPIError');
}

describe('Discord emulator REST v10 through @discordjs/rest', () => {
  let emulator: DiscordEmulator;
  let bot: REST;

  beforeEach(async () => {
    emulator = await createDiscordEmulator({ rateLimits: false });
    bot = createEmulatorRest(emulator);
  });

  afterEach(async () => {
    await emulator.close();
  });

  it('adds a member with their OAuth2 access token (201), then reports them present (204)', async () => {
    const user = emulator.createUser({ username: 'joiner' });
    const token = await accessTokenFor(emulator, user.id);
    const verified = emulator.guild.roleId('Verified');
    const member = (await bot.put(Routes.guildMember(emulator.guild.id, user.id), {
      body: { access_token: token, roles: [verified] },
    })) as APIGuildMember;
    expect(member.user?.id).toBe(user.id);
    expect(member.roles).toEqual([verified]);
    expect(emulator.state.memberRoleNames(user.id)).toEqual(['Verified']);

    const again = await fetch(`${emulator.apiBase}/v10/guilds/${emulator.guild.id}/members/${user.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bot ${emulator.application.botToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ access_token: token }),
    });
    expect(again.status).toBe(204);
  });

  it('ignores the roles of an Add Guild Member call for a user already in the guild (204, no body)', async () => {
    const user = emulator.createUser({ username: 'already-here' });
    emulator.addGuildMember(user.id, ['Limited Access']);
    const token = await accessTokenFor(emulator, user.id);
    const answer = await bot.put(Routes.guildMember(emulator.guild.id, user.id), {
      body: { access_token: token, roles: [emulator.guild.roleId('Unverified')] },
    });
    // @discordjs/rest hands back the empty body as bytes, never a member object
    expect(Array.isArray((answer as { roles?: unknown }).roles)).toBe(false);
    expect((answer as ArrayBuffer).byteLength).toBe(0);
    expect(emulator.state.memberRoleNames(user.id)).toEqual(['Limited Access']);
    expect(emulator.state.auditLog.filter((entry) => entry.action === 'member_add' && entry.targetId === user.id)).toHaveLength(0);
  });

  it('replaces the whole role list with Modify Guild Member, keeping what the body still lists', async () => {
    const user = emulator.createUser({ username: 'patched' });
    emulator.addGuildMember(user.id, ['Unverified', 'Staff']);
    const roles = [emulator.guild.roleId('Staff'), emulator.guild.roleId('Verified')];
    const patched = (await bot.patch(Routes.guildMember(emulator.guild.id, user.id), { body: { roles } })) as APIGuildMember;
    expect([...patched.roles].sort()).toEqual([...roles].sort());
    expect([...emulator.state.memberRoleNames(user.id)].sort()).toEqual(['Staff', 'Verified']);
    expect(emulator.state.auditLog.at(-1)).toMatchObject({ action: 'member_update', targetId: user.id });

    const stranger = emulator.createUser({ username: 'not-a-member' });
    expect((await apiError(bot.patch(Routes.guildMember(emulator.guild.id, stranger.id), { body: { roles } }))).code).toBe(10007);
  });

  it('drops from the member every role a Modify Guild Member list leaves out, one given by hand included', async () => {
    const pronouns = emulator.createRole({ name: 'Pronouns: she/her' });
    const user = emulator.createUser({ username: 'patched-over' });
    emulator.addGuildMember(user.id, ['Verified']);
    emulator.grantRole(user.id, pronouns.name);
    await bot.patch(Routes.guildMember(emulator.guild.id, user.id), { body: { roles: [emulator.guild.roleId('Unverified')] } });
    expect(emulator.state.memberRoleNames(user.id)).toEqual(['Unverified']);
  });

  it('changes one role per role call, answers 204 to a role held already or not held (no audit entry), and keeps each reason, decoded', async () => {
    const user = emulator.createUser({ username: 'role-by-role' });
    emulator.addGuildMember(user.id, ['Unverified', 'Staff']);
    const role = (name: string) => Routes.guildMemberRole(emulator.guild.id, user.id, emulator.guild.roleId(name));
    const reason = 'Gatekeeper: verified by staff (Zoë & co) 100%/ok';
    await bot.put(role('Verified'), { reason });
    await bot.put(role('Verified'), { reason });
    await bot.delete(role('Unverified'), { reason });
    await bot.delete(role('Limited Access'), { reason });
    expect([...emulator.state.memberRoleNames(user.id)].sort()).toEqual(['Staff', 'Verified']);
    expect(emulator.state.auditLog.filter((e) => e.targetId === user.id).map((e) => [e.action, e.reason])).toEqual([
      ['member_role_add', reason],
      ['member_role_remove', reason],
    ]);
  });

  it('refuses to add without guilds.join, without a token, or for a banned user', async () => {
    const user = emulator.createUser({ username: 'no-join' });
    const identifyOnly = await accessTokenFor(emulator, user.id, 'identify');
    expect((await apiError(bot.put(Routes.guildMember(emulator.guild.id, user.id), { body: { access_token: identifyOnly } }))).code).toBe(
      50025,
    );

    const missing = await apiError(bot.put(Routes.guildMember(emulator.guild.id, user.id), { body: {} }));
    expect(missing.status).toBe(400);
    expect(missing.code).toBe(50035);
    expect(missing.rawError).toMatchObject({ errors: { access_token: { _errors: [{ code: 'BASE_TYPE_REQUIRED' }] } } });

    await bot.put(Routes.guildBan(emulator.guild.id, user.id), { body: {}, reason: 'alt account' });
    const token = await accessTokenFor(emulator, user.id);
    expect((await apiError(bot.put(Routes.guildMember(emulator.guild.id, user.id), { body: { access_token: token } }))).code).toBe(40007);
    expect(emulator.state.auditLog.find((entry) => entry.action === 'member_ban')?.reason).toBe('alt account');
  });

  it('adds and removes roles, patches and kicks members', async () => {
    const member = emulator.state.findUserByName('sandbox-member');
    const userId = member?.id ?? '';
    const limited = emulator.guild.roleId('Limited Access');
    await bot.put(Routes.guildMemberRole(emulator.guild.id, userId, limited));
    expect(emulator.state.memberRoleNames(userId)).toEqual(['Verified', 'Limited Access']);
    await bot.delete(Routes.guildMemberRole(emulator.guild.id, userId, emulator.guild.roleId('Verified')), { reason: 'VPN detected' });
    expect(emulator.state.memberRoleNames(userId)).toEqual(['Limited Access']);
    expect(emulator.state.auditLog.at(-1)).toMatchObject({ action: 'member_role_remove', reason: 'VPN detected' });

    const patched = (await bot.patch(Routes.guildMember(emulator.guild.id, userId), {
      body: { roles: [emulator.guild.roleId('Unverified')] },
    })) as APIGuildMember;
    expect(patched.roles).toEqual([emulator.guild.roleId('Unverified')]);

    const fetched = (await bot.get(Routes.guildMember(emulator.guild.id, userId))) as APIGuildMember;
    expect(fetched.roles).toEqual(patched.roles);
    const list = (await bot.get(Routes.guildMembers(emulator.guild.id), {
      query: new URLSearchParams({ limit: '1000' }),
    })) as APIGuildMember[];
    expect(list.map((m) => m.user?.username)).toEqual(expect.arrayContaining(['sandbox-member', 'sandbox-staff', 'Gatekeeper']));
    // without a limit Discord answers one member; search matches the start of a name
    expect((await bot.get(Routes.guildMembers(emulator.guild.id))) as APIGuildMember[]).toHaveLength(1);
    const found = (await bot.get(Routes.guildMembersSearch(emulator.guild.id), {
      query: new URLSearchParams({ query: 'sandbox-s', limit: '10' }),
    })) as APIGuildMember[];
    expect(found.map((m) => m.user?.username)).toEqual(['sandbox-staff']);

    await bot.delete(Routes.guildMember(emulator.guild.id, userId));
    expect(emulator.state.getMember(userId)).toBeUndefined();
    expect((await apiError(bot.get(Routes.guildMember(emulator.guild.id, userId)))).code).toBe(10007);
  });

  it('enforces the role hierarchy and permissions like Discord', async () => {
    const userId = emulator.state.findUserByName('sandbox-member')?.id ?? '';
    const botRole = emulator.state.memberRoles(emulator.application.botUserId)[0]?.id ?? '';
    expect((await apiError(bot.put(Routes.guildMemberRole(emulator.guild.id, userId, botRole)))).code).toBe(50013);
    const ownerId = emulator.state.guild.ownerId;
    expect((await apiError(bot.delete(Routes.guildMember(emulator.guild.id, ownerId)))).code).toBe(50013);
    emulator.setRolePermissions(botRole, 0n);
    expect((await apiError(bot.put(Routes.guildMemberRole(emulator.guild.id, userId, emulator.guild.roleId('Staff'))))).status).toBe(403);
  });

  it('returns Discord-shaped 404s', async () => {
    const guild = emulator.guild.id;
    const stranger = emulator.createUser({ username: 'stranger' });
    expect((await apiError(bot.get(Routes.guildMember(guild, stranger.id)))).code).toBe(10007);
    expect((await apiError(bot.get(Routes.user('1234567890123456789')))).code).toBe(10013);
    expect((await apiError(bot.get(Routes.channel('1234567890123456789')))).code).toBe(10003);
    expect((await apiError(bot.put(Routes.guildMemberRole(guild, stranger.id, '1234567890123456789')))).code).toBe(10007);
    const memberId = emulator.state.findUserByName('sandbox-member')?.id ?? '';
    expect((await apiError(bot.put(Routes.guildMemberRole(guild, memberId, '1234567890123456789')))).code).toBe(10011);
    const channel = emulator.guild.channelId('logs');
    expect((await apiError(bot.get(Routes.channelMessage(channel, '1234567890123456789')))).code).toBe(10008);
    const unknownInteraction = await apiError(
      bot.post(Routes.interactionCallback('1234567890123456789', 'nope'), { body: { type: 4, data: { content: 'x' } }, auth: false }),
    );
    expect(unknownInteraction.code).toBe(10062);
  });

  it('answers 401 for a bad token and for a missing one', async () => {
    const wrong = createEmulatorRest(emulator, 'not-a-token');
    const error = await apiError(wrong.get(Routes.user('@me')));
    expect(error.status).toBe(401);
    expect(error.rawError).toEqual({ message: '401: Unauthorized', code: 0 });
    const anonymous = await fetch(`${emulator.apiBase}/v10/guilds/${emulator.guild.id}`);
    expect(anonymous.status).toBe(401);
  });

  it('serves /users/@me for the bot and for a Bearer token, decoding %40me', async () => {
    expect(((await bot.get(Routes.user('@me'))) as APIUser).id).toBe(emulator.application.botUserId);
    const user = emulator.createUser({ username: 'bearer-user', globalName: 'Bearer User' });
    const token = await accessTokenFor(emulator, user.id);
    const viaBearer = await fetch(`${emulator.apiBase}/v10/users/%40me`, { headers: { Authorization: `Bearer ${token}` } });
    expect(await viaBearer.json()).toMatchObject({ id: user.id, username: 'bearer-user', global_name: 'Bearer User' });
    const userRest = new REST({ api: emulator.apiBase, authPrefix: 'Bearer' }).setToken(token);
    expect(((await userRest.get(Routes.user())) as APIUser).id).toBe(user.id);
    // A Bearer token cannot call bot-only routes.
    expect((await apiError(userRest.get(Routes.user(user.id)))).status).toBe(401);
  });

  it('posts, lists, edits and deletes messages, keeping components', async () => {
    const channel = emulator.guild.channelId('verification');
    const components = [
      {
        type: ComponentType.ActionRow,
        components: [{ type: ComponentType.Button, style: ButtonStyle.Success, custom_id: 'go', label: 'Go' }],
      },
    ];
    const posted = (await bot.post(Routes.channelMessages(channel), { body: { content: 'Panel', components } })) as APIMessage;
    expect(posted.components).toEqual(components);
    await bot.post(Routes.channelMessages(channel), { body: { embeds: [{ title: 'Second' }] } });
    const listed = (await bot.get(Routes.channelMessages(channel), { query: new URLSearchParams({ limit: '1' }) })) as APIMessage[];
    expect(listed.map((m) => m.embeds[0]?.title)).toEqual(['Second']);
    const edited = (await bot.patch(Routes.channelMessage(channel, posted.id), { body: { content: 'Panel v2' } })) as APIMessage;
    expect(edited).toMatchObject({ content: 'Panel v2', components });
    expect(edited.edited_timestamp).not.toBeNull();

    const empty = await apiError(bot.post(Routes.channelMessages(channel), { body: { content: '' } }));
    expect(empty.code).toBe(50006);
    const tooLong = await apiError(bot.post(Routes.channelMessages(channel), { body: { content: 'x'.repeat(2001) } }));
    expect(tooLong.rawError).toMatchObject({ code: 50035, errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } } });
    const noCustomId = await apiError(
      bot.post(Routes.channelMessages(channel), {
        body: { content: 'bad', components: [{ type: 1, components: [{ type: 2, style: 1, label: 'x' }] }] },
      }),
    );
    expect(noCustomId.code).toBe(50035);

    await bot.delete(Routes.channelMessage(channel, posted.id));
    expect(emulator.state.messages(channel).map((m) => m.id)).not.toContain(posted.id);
  });

  it('registers application commands globally and per guild', async () => {
    const app = emulator.application.id;
    const body = [{ name: 'verify-status', description: 'Show your status', type: 1 }];
    const [created] = (await bot.put(Routes.applicationGuildCommands(app, emulator.guild.id), { body })) as Array<{
      id: string;
      name: string;
    }>;
    const [again] = (await bot.put(Routes.applicationGuildCommands(app, emulator.guild.id), { body })) as Array<{ id: string }>;
    expect(again?.id).toBe(created?.id); // bulk overwrite keeps ids by name, as Discord does
    await bot.put(Routes.applicationCommands(app), { body: [{ name: 'privacy', description: 'Your data' }] });
    expect(emulator.state.commandsFor(null).map((c) => c.name)).toEqual(['privacy']);
    expect(((await bot.get(Routes.applicationGuildCommands(app, emulator.guild.id))) as unknown[]).length).toBe(1);
    const invalid = await apiError(bot.put(Routes.applicationCommands(app), { body: [{ name: 'Bad Name', description: 'x' }] }));
    expect(invalid.code).toBe(50035);
  });

  it("stores a command's contexts and integration types, and refuses values the OpenAPI description does not allow", async () => {
    const app = emulator.application.id;
    const route = Routes.applicationGuildCommands(app, emulator.guild.id);
    const [guildOnly] = (await bot.put(route, { body: [{ name: 'status', description: 'x', contexts: [0] }] })) as Array<
      Record<string, unknown>
    >;
    expect(guildOnly).toMatchObject({ contexts: [0], integration_types: [0], dm_permission: false });
    const [everywhere] = (await bot.put(route, {
      body: [{ name: 'status', description: 'x', contexts: [0, 1, 2], integration_types: [0, 1] }],
    })) as Array<Record<string, unknown>>;
    expect(everywhere).toMatchObject({ contexts: [0, 1, 2], integration_types: [0, 1], dm_permission: true });
    const [unset] = (await bot.put(route, { body: [{ name: 'status', description: 'x' }] })) as Array<Record<string, unknown>>;
    expect(unset).toMatchObject({ contexts: null });
    for (const bad of [{ contexts: [3] }, { contexts: [] }, { contexts: [0, 0] }, { integration_types: [2] }]) {
      expect((await apiError(bot.put(route, { body: [{ name: 'status', description: 'x', ...bad }] }))).code).toBe(50035);
    }
  });

  it('serves guild, channels, roles and the gateway', async () => {
    const guild = (await bot.get(Routes.guild(emulator.guild.id))) as { name: string; roles: Array<{ id: string }> };
    expect(guild.name).toBe('Gatekeeper Sandbox');
    expect(((await bot.get(Routes.guildChannels(emulator.guild.id))) as unknown[]).length).toBe(5);
    expect(((await bot.get(Routes.guildRoles(emulator.guild.id))) as Array<{ id: string }>)[0]?.id).toBe(emulator.guild.id);
    const gateway = (await bot.get(Routes.gatewayBot())) as { url: string; shards: number };
    expect(gateway).toMatchObject({ url: emulator.gatewayUrl, shards: 1 });
    const unversioned = await fetch(`${emulator.apiBase}/gateway/bot`, {
      headers: { Authorization: `Bot ${emulator.application.botToken}` },
    });
    expect(unversioned.status).toBe(200);
  });
});
