import { PermissionFlagsBits, RESTJSONErrorCodes, type APIMessage } from 'discord-api-types/v10';
import type { EmulatorContext } from '../context';
import { requireBotChannelPermission } from '../guild-guards';
import { createMessage, editMessage, parseMessageBody } from '../message-factory';
import { RestError, unknownMessage } from '../rest-error';
import { noContent, ok, type RouteDefinition } from '../rest-router';

const notAuthor = () =>
  new RestError(403, {
    message: 'Cannot edit a message authored by another user',
    code: RESTJSONErrorCodes.CannotEditMessageAuthoredByAnotherUser,
  });

/** Messages newest first, with Discord's before/after/around paging and a limit of 1–100 (default 50). */
function pageMessages(all: APIMessage[], query: URLSearchParams): APIMessage[] {
  const limit = Math.min(Math.max(Number(query.get('limit') ?? 50) || 50, 1), 100);
  const newestFirst = [...all].sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
  const before = query.get('before');
  const after = query.get('after');
  const around = query.get('around');
  if (before) return newestFirst.filter((m) => BigInt(m.id) < BigInt(before)).slice(0, limit);
  if (after) return newestFirst.filter((m) => BigInt(m.id) > BigInt(after)).slice(-limit);
  if (around) {
    const index = newestFirst.findIndex((m) => m.id === around);
    if (index < 0) return [];
    const half = Math.floor(limit / 2);
    return newestFirst.slice(Math.max(0, index - half), index - half + limit);
  }
  return newestFirst.slice(0, limit);
}

export function messageRoutes(context: EmulatorContext): RouteDefinition[] {
  const { state } = context;
  const findMessage = (channelId: string, messageId: string) => {
    state.requireChannel(channelId);
    requireBotChannelPermission(context, channelId, PermissionFlagsBits.ViewChannel);
    const message = state.messages(channelId).find((m) => m.id === messageId);
    if (!message) throw unknownMessage();
    return message;
  };

  return [
    {
      method: 'GET',
      path: '/channels/:channelId/messages',
      auth: 'bot',
      bucket: 'messages-read',
      handle: ({ params, query }) => {
        const channelId = params.channelId ?? '';
        state.requireChannel(channelId);
        requireBotChannelPermission(context, channelId, PermissionFlagsBits.ReadMessageHistory);
        return ok(pageMessages(state.messages(channelId), query));
      },
    },
    {
      method: 'GET',
      path: '/channels/:channelId/messages/:messageId',
      auth: 'bot',
      bucket: 'messages-read',
      handle: ({ params }) => {
        requireBotChannelPermission(context, params.channelId ?? '', PermissionFlagsBits.ReadMessageHistory);
        return ok(findMessage(params.channelId ?? '', params.messageId ?? ''));
      },
    },
    {
      method: 'POST',
      path: '/channels/:channelId/messages',
      auth: 'bot',
      bucket: 'messages-write',
      handle: ({ params, body, files }) => {
        const channelId = params.channelId ?? '';
        state.requireChannel(channelId);
        requireBotChannelPermission(context, channelId, PermissionFlagsBits.SendMessages);
        const parsed = parseMessageBody(body, { requireContent: true, files });
        const message = createMessage(state, { channelId, author: state.botUser, body: parsed, files });
        return ok(state.postMessage(message));
      },
    },
    {
      method: 'PATCH',
      path: '/channels/:channelId/messages/:messageId',
      auth: 'bot',
      bucket: 'messages-write',
      handle: ({ params, body }) => {
        const message = findMessage(params.channelId ?? '', params.messageId ?? '');
        if (message.author.id !== state.botUserId) throw notAuthor();
        const parsed = parseMessageBody(body, { requireContent: false });
        return ok(state.replaceMessage(editMessage(state, message, parsed)));
      },
    },
    {
      method: 'DELETE',
      path: '/channels/:channelId/messages/:messageId',
      auth: 'bot',
      bucket: 'messages-write',
      handle: ({ params }) => {
        const message = findMessage(params.channelId ?? '', params.messageId ?? '');
        if (message.author.id !== state.botUserId)
          requireBotChannelPermission(context, message.channel_id, PermissionFlagsBits.ManageMessages);
        state.deleteMessage(message.channel_id, message.id);
        return noContent();
      },
    },
  ];
}
