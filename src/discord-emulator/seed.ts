import { randomBytes } from 'node:crypto';
import { GuildVerificationLevel, OverwriteType, PermissionFlagsBits, type APIRole } from 'discord-api-types/v10';
import type { EmulatorApplication } from './context';
import { makeRole, makeTextChannel, makeUser } from './entity-factory';
import { generateSnowflake } from './snowflake';
import { EmulatorState, NO_INCIDENTS, type GuildRecord } from './state';

export type SeedName = 'sandbox' | 'empty';

const DAY = 24 * 60 * 60 * 1000;
const ago = (days: number) => Date.now() - days * DAY;

export const SANDBOX_CHANNELS = ['verification', 'rules', 'raffle-confirmation-chat', 'stream-general-chat', 'logs'] as const;
export const SANDBOX_ROLES = ['Unverified', 'Limited Access', 'Verified', 'Staff'] as const;

const EVERYONE_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.AddReactions |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.UseApplicationCommands |
  PermissionFlagsBits.ChangeNickname;

/** What the bot is granted when invited (the README's invite link): add members, manage roles, kick, ban, post, and Manage Server for the lockdown's pause. */
export const BOT_ROLE_PERMISSIONS =
  PermissionFlagsBits.ManageRoles |
  PermissionFlagsBits.ManageGuild |
  PermissionFlagsBits.KickMembers |
  PermissionFlagsBits.BanMembers |
  PermissionFlagsBits.CreateInstantInvite |
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.ReadMessageHistory;

const STAFF_PERMISSIONS =
  PermissionFlagsBits.ManageGuild |
  PermissionFlagsBits.KickMembers |
  PermissionFlagsBits.BanMembers |
  PermissionFlagsBits.ModerateMembers |
  PermissionFlagsBits.ManageMessages;

/** A fresh application with a realistic-looking bot token (`base64(id).timestamp.hmac`-shaped). */
export function createApplication(name = 'Gatekeeper'): EmulatorApplication {
  const id = generateSnowflake(ago(400));
  return {
    id,
    name,
    clientId: id,
    clientSecret: randomBytes(24).toString('base64url'),
    botToken: `${Buffer.from(id).toString('base64url')}.${randomBytes(4).toString('base64url')}.${randomBytes(28).toString('base64url')}`,
    botUserId: id,
    redirectUris: [],
  };
}

/** Builds the state for a seed: the guild, its roles and channels, the bot as a member, and (sandbox) a few people. */
export function seedState(application: EmulatorApplication, seed: SeedName): EmulatorState {
  const guildId = generateSnowflake(ago(730));
  const bot = makeUser({ username: application.name, bot: true, createdAt: ago(400) });
  bot.id = application.botUserId;
  const owner = makeUser({
    username: seed === 'sandbox' ? 'sandbox-owner' : 'guild-owner',
    globalName: 'Guild Owner',
    createdAt: ago(2400),
  });

  const guild: GuildRecord = {
    id: guildId,
    name: seed === 'sandbox' ? 'Gatekeeper Sandbox' : 'Gatekeeper Test Guild',
    ownerId: owner.id,
    roles: new Map(),
    channels: new Map(),
    members: new Map(),
    bans: new Map(),
    incidents: { ...NO_INCIDENTS },
    verificationLevel: GuildVerificationLevel.Low,
  };
  const addRole = (role: APIRole) => guild.roles.set(role.id, role);
  addRole(makeRole({ id: guildId, name: '@everyone', position: 0, permissions: EVERYONE_PERMISSIONS }));

  const state = new EmulatorState(guild, bot.id);
  state.addUser({ user: bot, onVpn: false });
  state.addUser({ user: owner, onVpn: false });
  const join = (userId: string, roles: string[], daysAgo: number) =>
    guild.members.set(userId, {
      userId,
      roles,
      nick: null,
      joinedAt: new Date(ago(daysAgo)).toISOString(),
      communicationDisabledUntil: null,
    });
  join(owner.id, [], 700);

  const roleColors: Record<(typeof SANDBOX_ROLES)[number], number> = {
    Unverified: 0x95a5a6,
    'Limited Access': 0xf1c40f,
    Verified: 0x2ecc71,
    Staff: 0x5865f2,
  };
  let position = 1;
  if (seed === 'sandbox') {
    for (const name of SANDBOX_ROLES) {
      addRole(
        makeRole({
          name,
          position: position++,
          permissions: name === 'Staff' ? STAFF_PERMISSIONS : 0n,
          color: roleColors[name],
          hoist: name === 'Staff',
        }),
      );
    }
  }
  const botRole = makeRole({
    name: application.name,
    position: position++,
    permissions: BOT_ROLE_PERMISSIONS,
    managed: true,
    botId: bot.id,
    color: 0xeb459e,
  });
  addRole(botRole);
  join(bot.id, [botRole.id], 30);

  if (seed === 'sandbox') {
    const topics: Record<(typeof SANDBOX_CHANNELS)[number], string> = {
      verification: 'Click "Complete Verification!" after verifying on the website.',
      rules: 'Server rules.',
      'raffle-confirmation-chat': 'Open to Limited Access members.',
      'stream-general-chat': 'Open to Limited Access members.',
      logs: 'Gatekeeper posts verification outcomes here.',
    };
    SANDBOX_CHANNELS.forEach((name, index) => {
      const channel = makeTextChannel(guildId, name, index, topics[name]);
      guild.channels.set(channel.id, channel);
    });
    // #logs is staff-only, as the README suggests: hidden from @everyone, shown to Staff and to the bot's role.
    const logs = state.channelByName('logs');
    const view = String(PermissionFlagsBits.ViewChannel);
    if (logs) {
      logs.permission_overwrites = [
        { id: guildId, type: OverwriteType.Role, allow: '0', deny: view },
        { id: state.roleByName('Staff')?.id ?? '', type: OverwriteType.Role, allow: view, deny: '0' },
        { id: botRole.id, type: OverwriteType.Role, allow: view, deny: '0' },
      ];
    }
    const staff = makeUser({ username: 'sandbox-staff', globalName: 'Sandbox Staff', createdAt: ago(1100) });
    const member = makeUser({ username: 'sandbox-member', globalName: 'Sandbox Member', createdAt: ago(500) });
    const newcomer = makeUser({ username: 'sandbox-newcomer', globalName: 'Sandbox Newcomer', createdAt: ago(3) });
    for (const user of [staff, member, newcomer]) state.addUser({ user, onVpn: false });
    join(staff.id, [state.roleByName('Staff')?.id ?? ''], 400);
    join(member.id, [state.roleByName('Verified')?.id ?? ''], 200);
  }
  return state;
}
