import {
  ButtonStyle,
  ComponentType,
  MessageFlags,
  MessageType,
  RESTJSONErrorCodes,
  type APIAttachment,
  type APIEmbed,
  type APIMessage,
  type APIMessageInteractionMetadata,
  type APIMessageTopLevelComponent,
  type APIUser,
} from 'discord-api-types/v10';
import { z } from 'zod';
import { discordInteger, parseBody } from './form-validation';
import { fieldError, RestError } from './rest-error';
import { generateSnowflake } from './snowflake';
import type { EmulatorState } from './state';

const embedSchema = z.looseObject({
  title: z.string().max(256).nullish(),
  description: z.string().max(4096).nullish(),
  fields: z
    .array(z.looseObject({ name: z.string().max(256), value: z.string().max(1024) }))
    .max(25)
    .nullish(),
});

const messageBodySchema = z.looseObject({
  content: z.string().max(2000).nullish(),
  embeds: z.array(embedSchema).max(10).nullish(),
  components: z
    .array(z.looseObject({ type: z.number().int() }))
    .max(40)
    .nullish(),
  flags: discordInteger().nullish(),
  tts: z.boolean().nullish(),
  allowed_mentions: z
    .looseObject({
      parse: z.array(z.enum(['users', 'roles', 'everyone'])).nullish(),
      users: z.array(z.string()).max(100).nullish(),
      roles: z.array(z.string()).max(100).nullish(),
      replied_user: z.boolean().nullish(),
    })
    .nullish(),
  message_reference: z.looseObject({ message_id: z.string().optional() }).nullish(),
  attachments: z.array(z.looseObject({ id: z.union([z.string(), z.number()]) })).nullish(),
});

/** The message fields the emulator keeps, after validation (shared by channel, interaction and webhook routes). */
export interface MessageBody {
  content?: string | null;
  embeds?: APIEmbed[] | null;
  components?: APIMessageTopLevelComponent[] | null;
  flags?: number | null;
  tts?: boolean | null;
  message_reference?: { message_id?: string } | null;
  /** who the content may ping; absent, every mention pings */
  allowed_mentions?: AllowedMentions | null;
}

export interface AllowedMentions {
  parse?: ('users' | 'roles' | 'everyone')[] | null;
  users?: string[] | null;
  roles?: string[] | null;
  replied_user?: boolean | null;
}

export interface UploadedFile {
  name: string;
  contentType: string;
  size: number;
}

/** Validates a message create/edit body like Discord does (lengths, component rules); `requireContent` adds 50006 for empty creates. */
export function parseMessageBody(body: unknown, options: { requireContent: boolean; files?: UploadedFile[] }): MessageBody {
  const parsed = parseBody(messageBodySchema, body);
  // The schema checks the fields we enforce; the nested embed/component shapes are Discord's own types, passed through as sent.
  const message = parsed as MessageBody;
  if (message.allowed_mentions) checkAllowedMentions(message.allowed_mentions);
  if (message.embeds) checkEmbedsTotal(message.embeds);
  if (message.components) validateComponents(message.components, message.flags ?? 0);
  const empty = !message.content && !message.embeds?.length && !message.components?.length && !options.files?.length;
  if (options.requireContent && empty) {
    throw new RestError(400, { message: 'Cannot send an empty message', code: RESTJSONErrorCodes.CannotSendAnEmptyMessage });
  }
  return message;
}

/** Discord refuses a kind both parsed and listed by id ("parse: users" with "users"). */
function checkAllowedMentions(allowed: AllowedMentions): void {
  for (const kind of ['users', 'roles'] as const) {
    if (allowed.parse?.includes(kind) && allowed[kind]?.length) {
      throw fieldError(
        'allowed_mentions',
        'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
        `parse:["${kind}"] and ${kind}: [ids...] are mutually exclusive.`,
      );
    }
  }
}

/** Discord's limit for all of a message's embeds together: title, description, field names and values, footer and author text. */
const MAX_EMBEDS_TEXT = 6000;

function checkEmbedsTotal(embeds: APIEmbed[]): void {
  const total = embeds.reduce(
    (sum, e) =>
      sum +
      (e.title?.length ?? 0) +
      (e.description?.length ?? 0) +
      (e.footer?.text?.length ?? 0) +
      (e.author?.name?.length ?? 0) +
      (e.fields ?? []).reduce((n, f) => n + f.name.length + f.value.length, 0),
    0,
  );
  if (total > MAX_EMBEDS_TEXT) throw fieldError('embeds', 'MAX_EMBED_SIZE_EXCEEDED', 'Embed size exceeds maximum size of 6000');
}

function validateComponents(components: APIMessageTopLevelComponent[], flags: number): void {
  const componentsV2 = (flags & MessageFlags.IsComponentsV2) !== 0;
  if (!componentsV2 && components.length > 5) throw fieldError('components', 'BASE_TYPE_MAX_LENGTH', 'Must be 5 or fewer in length.');
  const customIds = new Set<string>();
  components.forEach((row, rowIndex) => {
    if (row.type !== ComponentType.ActionRow) {
      if (!componentsV2)
        throw fieldError(`components.${rowIndex}.type`, 'COMPONENT_TYPE_INVALID', 'Invalid component type (set the IsComponentsV2 flag).');
      return;
    }
    if (row.components.length === 0 || row.components.length > 5) {
      throw fieldError(`components.${rowIndex}.components`, 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 5 in length.');
    }
    row.components.forEach((component, index) => {
      const path = `components.${rowIndex}.components.${index}`;
      if (component.type !== ComponentType.Button) {
        if ('custom_id' in component) checkCustomId(customIds, component.custom_id, path);
        return;
      }
      if ('label' in component && component.label && component.label.length > 80)
        throw fieldError(`${path}.label`, 'BASE_TYPE_MAX_LENGTH', 'Must be 80 or fewer in length.');
      if (component.style === ButtonStyle.Link) {
        if (!component.url) throw fieldError(`${path}.url`, 'BASE_TYPE_REQUIRED', 'This field is required');
      } else if (component.style !== ButtonStyle.Premium) {
        checkCustomId(customIds, component.custom_id, path);
      }
    });
  });
}

function checkCustomId(seen: Set<string>, customId: string | undefined, path: string): void {
  if (!customId) throw fieldError(`${path}.custom_id`, 'BASE_TYPE_REQUIRED', 'This field is required');
  if (customId.length > 100) throw fieldError(`${path}.custom_id`, 'BASE_TYPE_MAX_LENGTH', 'Must be 100 or fewer in length.');
  if (seen.has(customId))
    throw fieldError(`${path}.custom_id`, 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated');
  seen.add(customId);
}

/**
 * Who a message's content pings, as Discord records it on the message: without allowed_mentions every
 * mention in the content; with it, only the kinds in `parse` and the users and roles listed by id
 * (and mentioned in the content). Mentions inside embeds never ping.
 */
function pingedBy(
  state: EmulatorState,
  content: string,
  allowed: AllowedMentions | null | undefined,
): Pick<APIMessage, 'mentions' | 'mention_roles' | 'mention_everyone'> {
  const may = (kind: 'users' | 'roles', id: string) =>
    !allowed || Boolean(allowed.parse?.includes(kind)) || Boolean(allowed[kind]?.includes(id));
  const userIds = [...new Set([...content.matchAll(/<@!?(\d{17,20})>/g)].map((match) => match[1] ?? ''))].filter((id) => may('users', id));
  const roleIds = [...new Set([...content.matchAll(/<@&(\d{17,20})>/g)].map((match) => match[1] ?? ''))].filter((id) => may('roles', id));
  return {
    mentions: userIds.flatMap((id) => {
      const record = state.users.get(id);
      return record ? [record.user] : [];
    }),
    mention_roles: roleIds,
    mention_everyone: /@(everyone|here)\b/.test(content) && (!allowed || Boolean(allowed.parse?.includes('everyone'))),
  };
}

export function createMessage(
  state: EmulatorState,
  input: {
    channelId: string;
    author: APIUser;
    body: MessageBody;
    type?: MessageType;
    files?: UploadedFile[];
    webhookId?: string;
    applicationId?: string;
    interactionMetadata?: APIMessageInteractionMetadata;
    extraFlags?: number;
  },
): APIMessage {
  const id = generateSnowflake();
  const content = input.body.content ?? '';
  const attachments: APIAttachment[] = (input.files ?? []).map((file) => ({
    id: generateSnowflake(),
    filename: file.name,
    size: file.size,
    url: `https://cdn.discordapp.com/attachments/${input.channelId}/${id}/${encodeURIComponent(file.name)}`,
    proxy_url: `https://media.discordapp.net/attachments/${input.channelId}/${id}/${encodeURIComponent(file.name)}`,
    content_type: file.contentType,
  }));
  const message: APIMessage = {
    id,
    channel_id: input.channelId,
    author: input.author,
    content,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: input.body.tts ?? false,
    ...pingedBy(state, content, input.body.allowed_mentions),
    attachments,
    embeds: input.body.embeds ?? [],
    pinned: false,
    type: input.type ?? MessageType.Default,
    flags: (input.body.flags ?? 0) | (input.extraFlags ?? 0),
    components: input.body.components ?? [],
  };
  if (input.webhookId) message.webhook_id = input.webhookId;
  if (input.applicationId) message.application_id = input.applicationId;
  if (input.interactionMetadata) message.interaction_metadata = input.interactionMetadata;
  if (input.body.message_reference?.message_id) {
    message.message_reference = { message_id: input.body.message_reference.message_id, channel_id: input.channelId };
  }
  return message;
}

/** A PATCH: fields present in the body replace the stored ones; the loading flag of a deferred reply clears. */
export function editMessage(state: EmulatorState, message: APIMessage, body: MessageBody): APIMessage {
  const edited: APIMessage = { ...message, edited_timestamp: new Date().toISOString() };
  if (body.content !== undefined) {
    edited.content = body.content ?? '';
    Object.assign(edited, pingedBy(state, edited.content, body.allowed_mentions));
  }
  if (body.embeds !== undefined) edited.embeds = body.embeds ?? [];
  if (body.components !== undefined) edited.components = body.components ?? [];
  if (body.flags !== undefined && body.flags !== null) {
    const kept = (message.flags ?? 0) & MessageFlags.Ephemeral;
    edited.flags = (body.flags & ~MessageFlags.Ephemeral) | kept;
  }
  edited.flags = (edited.flags ?? 0) & ~MessageFlags.Loading;
  return edited;
}
