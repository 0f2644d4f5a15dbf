import {
  InteractionResponseType,
  InteractionType,
  MessageFlags,
  MessageType,
  RESTJSONErrorCodes,
  type APIMessage,
  type RESTPostAPIInteractionCallbackWithResponseResult,
} from 'discord-api-types/v10';
import { z } from 'zod';
import type { EmulatorContext } from '../context';
import { parseBody } from '../form-validation';
import { interactionMetadata } from '../interaction-driver';
import type { InteractionRecord } from '../interaction-record';
import { createMessage, editMessage, parseMessageBody, type MessageBody, type UploadedFile } from '../message-factory';
import { requireApplication } from '../guild-guards';
import { RestError, unknownInteraction, unknownMessage, unknownWebhook } from '../rest-error';
import { noContent, ok, type RouteDefinition } from '../rest-router';

const callbackBody = z.object({ type: z.number().int(), data: z.unknown().optional() });

const alreadyAcknowledged = () =>
  new RestError(400, {
    message: 'Interaction has already been acknowledged.',
    code: RESTJSONErrorCodes.InteractionHasAlreadyBeenAcknowledged,
  });
const invalidCallback = (message: string) => new RestError(400, { message, code: RESTJSONErrorCodes.InvalidFormBodyOrContentType });

export function interactionRoutes(context: EmulatorContext): RouteDefinition[] {
  const { state, settings } = context;

  const touch = (record: InteractionRecord) => {
    record.lastChangeAt = Date.now();
    state.notifyChange();
  };

  const newReply = (record: InteractionRecord, body: MessageBody, files: UploadedFile[], extraFlags = 0): APIMessage => {
    const ephemeral = ((body.flags ?? 0) & MessageFlags.Ephemeral) !== 0 || (extraFlags & MessageFlags.Ephemeral) !== 0;
    const message = createMessage(state, {
      channelId: record.channelId,
      author: state.botUser,
      body,
      files,
      type: record.type === InteractionType.ApplicationCommand ? MessageType.ChatInputCommand : MessageType.Default,
      webhookId: context.application.id,
      applicationId: context.application.id,
      interactionMetadata: interactionMetadata(context, record),
      extraFlags,
    });
    return state.postMessage(message, ephemeral ? record.userId : null);
  };

  const sourceMessage = (record: InteractionRecord): APIMessage => {
    const message =
      record.updatedMessage ?? (record.sourceMessageId ? state.findMessage(record.channelId, record.sourceMessageId) : undefined);
    if (!message) throw unknownMessage();
    return message;
  };

  const handleCallback = (record: InteractionRecord, type: number, data: unknown, files: UploadedFile[]): APIMessage | null => {
    const isComponent = record.type === InteractionType.MessageComponent;
    switch (type) {
      case InteractionResponseType.ChannelMessageWithSource: {
        const body = parseMessageBody(data, { requireContent: true, files });
        record.ephemeral = ((body.flags ?? 0) & MessageFlags.Ephemeral) !== 0;
        record.response = newReply(record, body, files);
        return record.response;
      }
      case InteractionResponseType.DeferredChannelMessageWithSource: {
        const flags = parseMessageBody(data ?? {}, { requireContent: false }).flags ?? 0;
        record.ephemeral = (flags & MessageFlags.Ephemeral) !== 0;
        record.response = newReply(record, { content: '' }, [], (flags & MessageFlags.Ephemeral) | MessageFlags.Loading);
        return record.response;
      }
      case InteractionResponseType.DeferredMessageUpdate:
        if (!isComponent) throw invalidCallback('Interaction callback type 6 is only valid for component interactions.');
        return null;
      case InteractionResponseType.UpdateMessage: {
        if (!isComponent) throw invalidCallback('Interaction callback type 7 is only valid for component interactions.');
        const body = parseMessageBody(data ?? {}, { requireContent: false });
        record.updatedMessage = state.replaceMessage(editMessage(state, sourceMessage(record), body));
        return record.updatedMessage;
      }
      case InteractionResponseType.Modal:
        // Discord validates the modal deeply; the emulator checks the top level and keeps the rest, typed as Discord's, for assertions.
        record.modal = parseBody(
          z.looseObject({
            custom_id: z.string().min(1).max(100),
            title: z.string().min(1).max(45),
            components: z.array(z.unknown()).min(1).max(5),
          }),
          data,
        ) as NonNullable<InteractionRecord['modal']>;
        return null;
      case InteractionResponseType.ApplicationCommandAutocompleteResult:
        if (record.type !== InteractionType.ApplicationCommandAutocomplete)
          throw invalidCallback('Autocomplete results answer autocomplete interactions only.');
        // Choices are kept as sent (Discord's own type) after the count check.
        record.autocomplete = parseBody(z.looseObject({ choices: z.array(z.unknown()).max(25) }), data) as NonNullable<
          InteractionRecord['autocomplete']
        >;
        return null;
      default:
        throw invalidCallback(`Unsupported interaction callback type ${type}.`);
    }
  };

  const byToken = (params: Record<string, string>): InteractionRecord => {
    requireApplication(context, params.applicationId);
    const record = state.interactions.get(state.interactionIdsByToken.get(params.webhookToken ?? '') ?? '');
    if (!record || Date.now() - record.createdAt > settings.interactionTokenTtlMs) throw unknownWebhook();
    if (record.acknowledgedAt === null) throw unknownWebhook();
    return record;
  };

  /** The message behind `@original`: the reply, or for type 6/7 answers the component message itself. */
  const originalOf = (record: InteractionRecord): APIMessage => {
    if (record.response) return state.findMessage(record.channelId, record.response.id) ?? record.response;
    if (
      record.callbackType === InteractionResponseType.DeferredMessageUpdate ||
      record.callbackType === InteractionResponseType.UpdateMessage
    ) {
      return sourceMessage(record);
    }
    throw unknownMessage();
  };

  const messageOf = (record: InteractionRecord, messageId: string): APIMessage => {
    if (messageId === '@original') return originalOf(record);
    const message = record.followUps.find((m) => m.id === messageId) ?? (record.response?.id === messageId ? record.response : undefined);
    if (!message) throw unknownMessage();
    return message;
  };

  const storeEdit = (record: InteractionRecord, before: APIMessage, edited: APIMessage): APIMessage => {
    state.replaceMessage(edited);
    if (record.response?.id === before.id) {
      record.response = edited;
      record.responseEdited = true;
    } else if (before.id === record.sourceMessageId || before.id === record.updatedMessage?.id) {
      record.updatedMessage = edited;
    } else {
      record.followUps = record.followUps.map((m) => (m.id === edited.id ? edited : m));
    }
    touch(record);
    return edited;
  };

  return [
    {
      method: 'POST',
      path: '/interactions/:interactionId/:interactionToken/callback',
      auth: 'none',
      bucket: 'interaction-callback',
      handle: (request) => {
        const record = state.interactions.get(request.params.interactionId ?? '');
        if (!record || record.token !== request.params.interactionToken) throw unknownInteraction();
        if (record.acknowledgedAt !== null) throw alreadyAcknowledged();
        if (Date.now() - record.createdAt > settings.interactionAckTimeoutMs) throw unknownInteraction();
        const { type, data } = parseBody(callbackBody, request.body);
        const message = handleCallback(record, type, data, request.files);
        record.callbackType = type;
        record.acknowledgedAt = Date.now();
        touch(record);
        if (request.query.get('with_response') !== 'true') return noContent();
        const result: RESTPostAPIInteractionCallbackWithResponseResult = {
          interaction: {
            id: record.id,
            type: record.type,
            ...(record.response
              ? {
                  response_message_id: record.response.id,
                  response_message_loading: ((record.response.flags ?? 0) & MessageFlags.Loading) !== 0,
                  response_message_ephemeral: record.ephemeral,
                }
              : {}),
          },
          ...(message && record.callbackType !== null ? { resource: { type: record.callbackType, message } } : {}),
        };
        return ok(result);
      },
    },
    {
      method: 'POST',
      path: '/webhooks/:applicationId/:webhookToken',
      auth: 'none',
      bucket: 'webhook',
      handle: (request) => {
        const record = byToken(request.params);
        const body = parseMessageBody(request.body, { requireContent: true, files: request.files });
        const deferred = record.callbackType === InteractionResponseType.DeferredChannelMessageWithSource;
        let message: APIMessage;
        if (deferred && record.response && !record.responseEdited) {
          // Discord turns the first follow-up after a deferral into the deferred reply itself.
          message = storeEdit(record, record.response, editMessage(state, record.response, body));
        } else {
          message = newReply(record, body, request.files);
          record.followUps.push(message);
          touch(record);
        }
        return request.query.get('wait') === 'false' ? noContent() : ok(message);
      },
    },
    {
      method: 'GET',
      path: '/webhooks/:applicationId/:webhookToken/messages/:messageId',
      auth: 'none',
      bucket: 'webhook',
      handle: ({ params }) => ok(messageOf(byToken(params), params.messageId ?? '')),
    },
    {
      method: 'PATCH',
      path: '/webhooks/:applicationId/:webhookToken/messages/:messageId',
      auth: 'none',
      bucket: 'webhook',
      handle: (request) => {
        const record = byToken(request.params);
        const before = messageOf(record, request.params.messageId ?? '');
        const body = parseMessageBody(request.body, { requireContent: false, files: request.files });
        return ok(storeEdit(record, before, editMessage(state, before, body)));
      },
    },
    {
      method: 'DELETE',
      path: '/webhooks/:applicationId/:webhookToken/messages/:messageId',
      auth: 'none',
      bucket: 'webhook',
      handle: ({ params }) => {
        const record = byToken(params);
        const message = messageOf(record, params.messageId ?? '');
        state.deleteMessage(message.channel_id, message.id);
        if (record.response?.id === message.id) record.response = null;
        record.followUps = record.followUps.filter((m) => m.id !== message.id);
        touch(record);
        return noContent();
      },
    },
  ];
}
