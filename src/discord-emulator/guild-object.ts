import {
  GuildDefaultMessageNotifications,
  GuildExplicitContentFilter,
  GuildMFALevel,
  GuildNSFWLevel,
  GuildPremiumTier,
  GuildSystemChannelFlags,
  GuildVerificationLevel,
  Locale,
  type APIGuild,
  type GatewayGuildCreateDispatchData,
} from 'discord-api-types/v10';
import type { EmulatorState, GuildIncidents } from './state';

/** Discord sends `incidents_data: null` while nothing is paused or detected. */
function hasIncidents(incidents: GuildIncidents): boolean {
  return Object.values(incidents).some((value) => value !== null);
}

export function toApiGuild(state: EmulatorState): APIGuild {
  const { guild } = state;
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: 'A guild served by the Gatekeeper Discord emulator',
    owner_id: guild.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: guild.verificationLevel as GuildVerificationLevel,
    default_message_notifications: GuildDefaultMessageNotifications.OnlyMentions,
    explicit_content_filter: GuildExplicitContentFilter.AllMembers,
    roles: state.sortedRoles(),
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: GuildMFALevel.None,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: GuildSystemChannelFlags.SuppressJoinNotifications,
    rules_channel_id: state.channelByName('rules')?.id ?? null,
    vanity_url_code: null,
    premium_tier: GuildPremiumTier.None,
    premium_subscription_count: 0,
    preferred_locale: Locale.EnglishUS,
    public_updates_channel_id: null,
    nsfw_level: GuildNSFWLevel.Default,
    premium_progress_bar_enabled: false,
    hub_type: null,
    safety_alerts_channel_id: null,
    incidents_data: hasIncidents(guild.incidents) ? { ...guild.incidents } : null,
    max_members: 500_000,
  };
}

/** GUILD_CREATE: the guild plus channels and members (all of them with the GUILD_MEMBERS intent, else just the bot). */
export function toGuildCreate(state: EmulatorState, options: { allMembers: boolean }): GatewayGuildCreateDispatchData {
  const members = [...state.guild.members.values()].filter((member) => options.allMembers || member.userId === state.botUserId);
  return {
    ...toApiGuild(state),
    joined_at: state.getMember(state.botUserId)?.joinedAt ?? new Date().toISOString(),
    large: false,
    unavailable: false,
    member_count: state.guild.members.size,
    voice_states: [],
    members: members.map((member) => state.toApiMember(member)),
    channels: [...state.guild.channels.values()],
    threads: [],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}
