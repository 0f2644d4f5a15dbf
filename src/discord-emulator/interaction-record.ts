import {
  InteractionResponseType,
  type APIApplicationCommandAutocompleteResponse,
  type APIInteraction,
  type APIMessage,
  type APIModalInteractionResponseCallbackData,
  type InteractionType,
} from 'discord-api-types/v10';

/** One interaction the emulator delivered and everything the bot answered to it. */
export interface InteractionRecord {
  id: string;
  token: string;
  type: InteractionType;
  /** custom_id of the clicked component, or the command name. */
  name: string;
  userId: string;
  guildId: string;
  channelId: string;
  /** The message carrying the clicked component, for component interactions. */
  sourceMessageId: string | null;
  createdAt: number;
  payload: APIInteraction;
  callbackType: InteractionResponseType | null;
  acknowledgedAt: number | null;
  ephemeral: boolean;
  /** The response message (type 4, or the deferred "thinking" message of type 5), after any edits. */
  response: APIMessage | null;
  responseEdited: boolean;
  followUps: APIMessage[];
  /** The component message after a type 7 update or an edit of @original following type 6. */
  updatedMessage: APIMessage | null;
  modal: APIModalInteractionResponseCallbackData | null;
  autocomplete: APIApplicationCommandAutocompleteResponse['data'] | null;
  lastChangeAt: number;
}

export interface InteractionResult {
  interactionId: string;
  /** The bot answered the callback in time. */
  acknowledged: boolean;
  /** Discord would show "This interaction failed": no callback within the acknowledgement window. */
  failed: boolean;
  callbackType: InteractionResponseType | null;
  ephemeral: boolean;
  reply: APIMessage | null;
  followUps: APIMessage[];
  updatedMessage: APIMessage | null;
  /** reply (if any) followed by follow-ups: what the member reads. */
  messages: APIMessage[];
  /** All their text, joined with newlines (content, embed titles and descriptions): handy for assertions. */
  text: string;
  modal: APIModalInteractionResponseCallbackData | null;
}

export interface WaitOptions {
  /** Quiet time after the last answer before the result is considered complete (default 150 ms). */
  settleMs?: number;
  /** Upper bound for a deferred answer to arrive (default 10 s). */
  timeoutMs?: number;
}

export function toInteractionResult(record: InteractionRecord, failed: boolean): InteractionResult {
  const messages = [...(record.response ? [record.response] : []), ...record.followUps];
  const text = messages
    .flatMap((message) => [message.content, ...message.embeds.flatMap((embed) => [embed.title ?? '', embed.description ?? ''])])
    .filter(Boolean)
    .join('\n');
  return {
    interactionId: record.id,
    acknowledged: record.acknowledgedAt !== null,
    failed,
    callbackType: record.callbackType,
    ephemeral: record.ephemeral,
    reply: record.response,
    followUps: [...record.followUps],
    updatedMessage: record.updatedMessage,
    messages,
    text,
    modal: record.modal,
  };
}

/** Whether the bot has said something the member can read (a deferral alone has not). */
function hasAnswered(record: InteractionRecord): boolean {
  switch (record.callbackType) {
    case InteractionResponseType.ChannelMessageWithSource:
    case InteractionResponseType.UpdateMessage:
    case InteractionResponseType.Modal:
    case InteractionResponseType.ApplicationCommandAutocompleteResult:
      return true;
    case InteractionResponseType.DeferredChannelMessageWithSource:
    case InteractionResponseType.DeferredMessageUpdate:
      return record.responseEdited || record.followUps.length > 0 || record.updatedMessage !== null;
    default:
      return false;
  }
}

/** The part of the emulator's state the wait listens to (kept narrow so this file does not import state.ts). */
export interface ChangeSource {
  onChange(listener: () => void): () => void;
}

/**
 * Resolves once the bot has answered and gone quiet for `settleMs`, or with `failed` when no callback came within the
 * acknowledgement window, or when a deferred answer never arrived within `timeoutMs`.
 */
export function waitForInteractionResult(
  state: ChangeSource,
  record: InteractionRecord,
  ackTimeoutMs: number,
  options: WaitOptions = {},
): Promise<InteractionResult> {
  const settleMs = options.settleMs ?? 150;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve) => {
    const check = () => {
      const now = Date.now();
      if (record.acknowledgedAt === null) {
        if (now - record.createdAt >= ackTimeoutMs) finish(true);
        return;
      }
      if (hasAnswered(record) ? now - record.lastChangeAt >= settleMs : now - record.createdAt >= timeoutMs) finish(false);
    };
    const timer = setInterval(check, 10);
    timer.unref(); // a click still waiting must not keep a test process alive after the emulator closed
    const unsubscribe = state.onChange(check);
    const finish = (failed: boolean) => {
      clearInterval(timer);
      unsubscribe();
      resolve(toInteractionResult(record, failed));
    };
  });
}
