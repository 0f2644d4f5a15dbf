import { randomBytes } from 'node:crypto';
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  ButtonStyle,
  ComponentType,
  GatewayDispatchEvents,
  InteractionContextType,
  InteractionType,
  Locale,
  type APIApplicationCommandInteractionDataBasicOption,
  type APIApplicationCommandInteractionDataOption,
  type APIApplicationCommandOption,
  type APIChatInputApplicationCommandGuildInteraction,
  type APIInteraction,
  type APIInteractionDataResolved,
  type APIInteractionGuildMember,
  type APIMessage,
  type APIMessageComponentGuildInteraction,
  type APIMessageInteractionMetadata,
} from 'discord-api-types/v10';
import type { EmulatorContext } from './context';
import { waitForInteractionResult, type InteractionRecord, type InteractionResult, type WaitOptions } from './interaction-record';
import { hasPermission } from './permissions';
import { generateSnowflake } from './snowflake';
import { NO_MEMBER_FLAGS } from './state';

export type SlashOptionValue = string | number | boolean;

export interface ClickButtonInput {
  userId: string;
  channelId: string;
  messageId: string;
  customId: string;
  /** Pretend the click comes from another guild (to test the bot's refusal of unknown guilds). */
  guildId?: string;
}

export interface SlashCommandInput {
  userId: string;
  channelId: string;
  name: string;
  /** Option values by name; user/role/channel options take ids. Types follow the registered command. */
  options?: Record<string, SlashOptionValue>;
  subcommand?: string;
  subcommandGroup?: string;
  guildId?: string;
  /** Run even if the member lacks the command's default_member_permissions (Discord would hide the command). */
  ignoreCommandPermissions?: boolean;
}

const ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024;

function interactionMember(context: EmulatorContext, userId: string, guildId: string): APIInteractionGuildMember {
  const { state } = context;
  const member = state.getMember(userId);
  if (!member || guildId !== state.guild.id) {
    // A guild the emulator does not model: a plain member with @everyone's permissions.
    return {
      user: state.requireUser(userId),
      roles: [],
      joined_at: new Date().toISOString(),
      deaf: false,
      mute: false,
      flags: NO_MEMBER_FLAGS,
      permissions: state.everyoneRole.permissions,
    };
  }
  return { ...state.toApiMember(member), permissions: String(state.memberPermissions(userId)) };
}

function basePayload(context: EmulatorContext, input: { userId: string; channelId: string; guildId?: string }) {
  const { state } = context;
  const guildId = input.guildId ?? state.guild.id;
  const channel = state.requireChannel(input.channelId);
  return {
    id: generateSnowflake(),
    application_id: context.application.id,
    token: `aW50ZXJhY3Rpb24.${randomBytes(48).toString('base64url')}`,
    version: 1 as const,
    guild_id: guildId,
    guild: { id: guildId, features: [], locale: Locale.EnglishUS },
    channel,
    channel_id: channel.id,
    member: interactionMember(context, input.userId, guildId),
    app_permissions: String(state.memberPermissions(context.application.botUserId)),
    locale: Locale.EnglishUS,
    guild_locale: Locale.EnglishUS,
    entitlements: [],
    authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: guildId },
    context: InteractionContextType.Guild,
    attachment_size_limit: ATTACHMENT_SIZE_LIMIT,
  };
}

function requireMember(context: EmulatorContext, userId: string, guildId: string | undefined): void {
  context.state.requireUser(userId);
  if ((guildId ?? context.state.guild.id) === context.state.guild.id && !context.state.getMember(userId)) {
    throw new Error(`user ${userId} is not a member of the guild, so Discord would not show them this channel`);
  }
}

/** Every button in a message, including those nested in Components V2 containers and sections. */
function findButtons(message: APIMessage): Array<{ customId: string; label: string; disabled: boolean }> {
  const found: Array<{ customId: string; label: string; disabled: boolean }> = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const component = node as {
      type?: number;
      style?: number;
      custom_id?: string;
      label?: string;
      disabled?: boolean;
      components?: unknown;
      accessory?: unknown;
    };
    if (component.type === ComponentType.Button && component.style !== ButtonStyle.Link && component.custom_id) {
      found.push({ customId: component.custom_id, label: component.label ?? '', disabled: component.disabled ?? false });
    }
    visit(component.components);
    visit(component.accessory);
  };
  visit(message.components ?? []);
  return found;
}

export function buildButtonInteraction(context: EmulatorContext, input: ClickButtonInput): APIMessageComponentGuildInteraction {
  const { state } = context;
  requireMember(context, input.userId, input.guildId);
  state.requireChannel(input.channelId);
  const ephemeral = state.ephemeralMessages.get(input.messageId);
  const message =
    ephemeral?.userId === input.userId ? ephemeral.message : state.messages(input.channelId).find((m) => m.id === input.messageId);
  if (!message) throw new Error(`clickButton: no message ${input.messageId} visible to ${input.userId} in channel ${input.channelId}`);
  const buttons = findButtons(message);
  const button = buttons.find((candidate) => candidate.customId === input.customId);
  if (!button)
    throw new Error(`clickButton: message has no button "${input.customId}" (has: ${buttons.map((b) => b.customId).join(', ') || 'none'})`);
  if (button.disabled) throw new Error(`clickButton: button "${input.customId}" is disabled`);
  return {
    ...basePayload(context, input),
    type: InteractionType.MessageComponent,
    data: { custom_id: input.customId, component_type: ComponentType.Button },
    message,
  };
}

function findOptionDefinitions(
  options: APIApplicationCommandOption[] | undefined,
  input: SlashCommandInput,
): {
  definitions: APIApplicationCommandOption[];
  wrap: (inner: APIApplicationCommandInteractionDataBasicOption[]) => APIApplicationCommandInteractionDataOption[];
} {
  let definitions = options ?? [];
  const path: Array<{ name: string; type: ApplicationCommandOptionType.Subcommand | ApplicationCommandOptionType.SubcommandGroup }> = [];
  if (input.subcommandGroup) {
    const group = definitions.find((o) => o.type === ApplicationCommandOptionType.SubcommandGroup && o.name === input.subcommandGroup);
    if (!group || group.type !== ApplicationCommandOptionType.SubcommandGroup)
      throw new Error(`runSlashCommand: no subcommand group "${input.subcommandGroup}"`);
    definitions = group.options ?? [];
    path.push({ name: group.name, type: ApplicationCommandOptionType.SubcommandGroup });
  }
  if (input.subcommand) {
    const sub = definitions.find((o) => o.type === ApplicationCommandOptionType.Subcommand && o.name === input.subcommand);
    if (!sub || sub.type !== ApplicationCommandOptionType.Subcommand)
      throw new Error(`runSlashCommand: no subcommand "${input.subcommand}"`);
    definitions = sub.options ?? [];
    path.push({ name: sub.name, type: ApplicationCommandOptionType.Subcommand });
  } else if (
    definitions.some((o) => o.type === ApplicationCommandOptionType.Subcommand || o.type === ApplicationCommandOptionType.SubcommandGroup)
  ) {
    throw new Error('runSlashCommand: this command needs a subcommand');
  }
  const wrap = (inner: APIApplicationCommandInteractionDataBasicOption[]): APIApplicationCommandInteractionDataOption[] => {
    const [group, sub] = path.length === 2 ? path : [undefined, path[0]];
    if (!sub) return inner;
    const subOption: APIApplicationCommandInteractionDataOption = {
      name: sub.name,
      type: ApplicationCommandOptionType.Subcommand,
      options: inner,
    };
    return group ? [{ name: group.name, type: ApplicationCommandOptionType.SubcommandGroup, options: [subOption] }] : [subOption];
  };
  return { definitions, wrap };
}

function buildOption(
  context: EmulatorContext,
  definition: APIApplicationCommandOption,
  value: SlashOptionValue,
  resolved: APIInteractionDataResolved,
): APIApplicationCommandInteractionDataBasicOption {
  const { state } = context;
  const name = definition.name;
  const asString = String(value);
  if ('choices' in definition && definition.choices?.length && !definition.choices.some((choice) => choice.value === value)) {
    throw new Error(`runSlashCommand: "${String(value)}" is not a choice of option "${name}"`);
  }
  switch (definition.type) {
    case ApplicationCommandOptionType.String:
      return { name, type: definition.type, value: asString };
    case ApplicationCommandOptionType.Integer:
      if (!Number.isInteger(Number(value))) throw new Error(`runSlashCommand: option "${name}" needs an integer`);
      return { name, type: definition.type, value: Number(value) };
    case ApplicationCommandOptionType.Number:
      return { name, type: definition.type, value: Number(value) };
    case ApplicationCommandOptionType.Boolean:
      return { name, type: definition.type, value: value === true || value === 'true' };
    case ApplicationCommandOptionType.User:
    case ApplicationCommandOptionType.Mentionable: {
      const user = state.users.get(asString)?.user;
      const role = state.guild.roles.get(asString);
      if (user) {
        (resolved.users ??= {})[user.id] = user;
        const member = state.getMember(user.id);
        if (member) {
          const { user: _omitted, ...partial } = state.toApiMember(member);
          (resolved.members ??= {})[user.id] = { ...partial, permissions: String(state.memberPermissions(user.id)) };
        }
      } else if (role && definition.type === ApplicationCommandOptionType.Mentionable) {
        (resolved.roles ??= {})[role.id] = role;
      } else {
        throw new Error(`runSlashCommand: option "${name}" needs a known user id`);
      }
      return { name, type: definition.type, value: asString };
    }
    case ApplicationCommandOptionType.Role: {
      const role = state.requireRole(asString);
      (resolved.roles ??= {})[role.id] = role;
      return { name, type: definition.type, value: asString };
    }
    case ApplicationCommandOptionType.Channel: {
      const channel = state.requireChannel(asString);
      (resolved.channels ??= {})[channel.id] = {
        id: channel.id,
        name: channel.name,
        type: channel.type,
        permissions: String(state.memberPermissions(context.application.botUserId)),
      };
      return { name, type: definition.type, value: asString };
    }
    default:
      throw new Error(`runSlashCommand: option type ${definition.type} of "${name}" is not supported by the emulator`);
  }
}

export function buildSlashInteraction(context: EmulatorContext, input: SlashCommandInput): APIChatInputApplicationCommandGuildInteraction {
  const { state } = context;
  requireMember(context, input.userId, input.guildId);
  const command = state.findCommand(input.name, state.guild.id);
  if (!command || command.type !== ApplicationCommandType.ChatInput) throw new Error(`runSlashCommand: /${input.name} is not registered`);
  const base = basePayload(context, input);
  if (command.default_member_permissions !== null && !input.ignoreCommandPermissions) {
    const needed = BigInt(command.default_member_permissions);
    if (!hasPermission(BigInt(base.member.permissions), needed)) {
      throw new Error(
        `runSlashCommand: /${input.name} is hidden from this member (default_member_permissions ${command.default_member_permissions})`,
      );
    }
  }
  const { definitions, wrap } = findOptionDefinitions(command.options, input);
  const resolved: APIInteractionDataResolved = {};
  const values = input.options ?? {};
  const options = Object.entries(values).map(([name, value]) => {
    const definition = definitions.find((d) => d.name === name);
    if (!definition) throw new Error(`runSlashCommand: /${input.name} has no option "${name}"`);
    return buildOption(context, definition, value, resolved);
  });
  const missing = definitions.filter((d) => 'required' in d && d.required && !(d.name in values)).map((d) => d.name);
  if (missing.length > 0) throw new Error(`runSlashCommand: missing required option(s) ${missing.join(', ')}`);
  return {
    ...base,
    type: InteractionType.ApplicationCommand,
    data: {
      id: command.id,
      name: command.name,
      type: ApplicationCommandType.ChatInput,
      guild_id: command.guild_id ?? state.guild.id,
      options: wrap(options),
      ...(Object.keys(resolved).length > 0 ? { resolved } : {}),
    },
  };
}

/** Records an interaction, dispatches INTERACTION_CREATE and waits for what the bot answers. */
export function deliverInteraction(context: EmulatorContext, payload: APIInteraction, wait: WaitOptions = {}): Promise<InteractionResult> {
  const { state } = context;
  const isComponent = payload.type === InteractionType.MessageComponent;
  const record: InteractionRecord = {
    id: payload.id,
    token: payload.token,
    type: payload.type,
    name: isComponent ? payload.data.custom_id : payload.type === InteractionType.ApplicationCommand ? payload.data.name : '',
    userId: payload.member?.user.id ?? payload.user?.id ?? '',
    guildId: payload.guild_id ?? '',
    channelId: payload.channel?.id ?? '',
    sourceMessageId: isComponent ? payload.message.id : null,
    createdAt: Date.now(),
    payload,
    callbackType: null,
    acknowledgedAt: null,
    ephemeral: false,
    response: null,
    responseEdited: false,
    followUps: [],
    updatedMessage: null,
    modal: null,
    autocomplete: null,
    lastChangeAt: Date.now(),
  };
  state.interactions.set(record.id, record);
  state.interactionIdsByToken.set(record.token, record.id);
  state.dispatch(GatewayDispatchEvents.InteractionCreate, payload);
  return waitForInteractionResult(state, record, context.settings.interactionAckTimeoutMs, wait);
}

/** interaction_metadata for messages created in answer to an interaction. */
export function interactionMetadata(context: EmulatorContext, record: InteractionRecord): APIMessageInteractionMetadata {
  const base = {
    id: record.id,
    user: context.state.requireUser(record.userId),
    authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: record.guildId },
    ...(record.response ? { original_response_message_id: record.response.id } : {}),
  };
  if (record.type === InteractionType.MessageComponent) {
    return { ...base, type: InteractionType.MessageComponent, interacted_message_id: record.sourceMessageId ?? '' };
  }
  return { ...base, type: InteractionType.ApplicationCommand };
}
