import {
  ButtonStyle,
  ComponentType,
  type APIActionRowComponent,
  type APIAllowedMentions,
  type APIButtonComponent,
  type APIEmbed,
  type RESTPostAPIChannelMessageJSONBody,
} from 'discord-api-types/v10';
import type { LogCard, LogEvent, OutboxEntry } from '../../modules/outbox';
import { MAX_MESSAGE, packLogMessages } from '../outbox/pack-log-messages';

/**
 * Discord's limits for one message of cards: 5 action rows (components v1), so 5 cards, each an embed
 * with its own row; the embeds' text together at most 6,000 characters, a description at most 4,096.
 */
export const CARDS_PER_MESSAGE = 5;
export const MAX_EMBED_TEXT = 6000;
const MAX_DESCRIPTION = 4096;
/** Room kept in each card for the line naming who acted (its field's name and value), added when a button is pressed. */
export const HANDLED_ROOM = 160;
/** Discord's limit for a button's custom_id. */
export const MAX_CUSTOM_ID = 100;

/** What staff can do from a card's buttons. */
export const LOG_ACTIONS = ['verify', 'kick', 'ban', 'notsame', 'approve', 'reject'] as const;
export type LogAction = (typeof LOG_ACTIONS)[number];

const LABELS: Record<LogAction, string> = {
  verify: 'Verify',
  kick: 'Deny / Kick',
  ban: 'Ban',
  notsame: 'Not the same person',
  approve: 'Approve appeal',
  reject: 'Reject appeal',
};
const STYLES: Record<LogAction, ButtonStyle.Success | ButtonStyle.Danger | ButtonStyle.Secondary> = {
  verify: ButtonStyle.Success,
  kick: ButtonStyle.Danger,
  ban: ButtonStyle.Danger,
  notsame: ButtonStyle.Secondary,
  approve: ButtonStyle.Success,
  reject: ButtonStyle.Danger,
};
/** A card's left edge: green verified, amber Limited Access, red denied or alt, blurple appeals and the rest. */
const COLORS: Partial<Record<LogEvent['kind'], number>> = {
  verified: 0x23a55a,
  limited_access: 0xf0b232,
  vpn_blocked: 0xf0b232,
  alt_detected: 0xf23f43,
  denied: 0xf23f43,
  appeal: 0x5865f2,
};

/** The prefix of every card button's custom_id (the dispatcher routes on it). */
export const LOG_BUTTON_PREFIX = 'gk-log';

/** A card button's custom_id, and what it names: `gk-log:<action>:<card>:<discordId>[:<mainId or appealId>]`. */
export interface LogButtonTarget {
  action: LogAction;
  /** the log line's outbox id: tells two cards about one member apart in one message */
  card: number;
  discordId: string;
  mainId?: string;
  appealId?: number;
}

export function encodeLogButton(target: LogButtonTarget): string {
  const extra = target.mainId ?? (target.appealId === undefined ? undefined : String(target.appealId));
  return [LOG_BUTTON_PREFIX, target.action, String(target.card), target.discordId, ...(extra === undefined ? [] : [extra])].join(':');
}

const SNOWFLAKE = /^\d{17,20}$/;
const NUMBER = /^\d{1,15}$/;

/** Reads a card button's custom_id; null for anything this product did not write (a forged or foreign id). */
export function decodeLogButton(customId: string): LogButtonTarget | null {
  if (customId.length > MAX_CUSTOM_ID) return null;
  const [prefix, action, card, discordId, extra, ...rest] = customId.split(':');
  if (prefix !== LOG_BUTTON_PREFIX || rest.length > 0 || !(LOG_ACTIONS as readonly string[]).includes(action ?? '')) return null;
  if (!NUMBER.test(card ?? '') || !SNOWFLAKE.test(discordId ?? '')) return null;
  const target: LogButtonTarget = { action: action as LogAction, card: Number(card), discordId: discordId! };
  if (target.action === 'notsame') {
    if (!SNOWFLAKE.test(extra ?? '')) return null;
    target.mainId = extra;
  } else if (target.action === 'approve' || target.action === 'reject') {
    if (!NUMBER.test(extra ?? '')) return null;
    target.appealId = Number(extra);
  } else if (extra !== undefined) return null;
  return target;
}

/** The actions a card offers, in the order its buttons show. */
export function cardActions(card: LogCard): LogAction[] {
  switch (card.for) {
    case 'member':
      return card.verified ? ['kick', 'ban'] : ['verify', 'kick', 'ban'];
    case 'alt':
      return ['verify', 'kick', 'ban', 'notsame'];
    case 'appeal':
      return ['approve', 'reject'];
  }
}

/** The member's page on the dashboard. */
export function dashboardUrl(websiteUrl: string, discordId: string): string {
  return `${websiteUrl.replace(/\/+$/, '')}/admin/user/${discordId}`;
}

/** A card's row: one button per action and a link to the member's dashboard page (at most 5, Discord's row limit). */
export function cardRow(card: LogCard, cardId: number, websiteUrl: string): APIActionRowComponent<APIButtonComponent> {
  const buttons: APIButtonComponent[] = cardActions(card).map((action) => ({
    type: ComponentType.Button,
    style: STYLES[action],
    label: LABELS[action],
    custom_id: encodeLogButton({
      action,
      card: cardId,
      discordId: card.discordId,
      mainId: action === 'notsame' && card.for === 'alt' ? card.mainId : undefined,
      appealId: card.for === 'appeal' && (action === 'approve' || action === 'reject') ? card.appealId : undefined,
    }),
  }));
  buttons.push({ type: ComponentType.Button, style: ButtonStyle.Link, label: 'Dashboard', url: dashboardUrl(websiteUrl, card.discordId) });
  return { type: ComponentType.ActionRow, components: buttons };
}

/** A card's embed: the log line as its description, coloured by the event. */
export function cardEmbed(text: string, event: LogEvent['kind'] | null): APIEmbed {
  const color = event ? COLORS[event] : undefined;
  return { description: text.slice(0, MAX_DESCRIPTION), ...(color === undefined ? {} : { color }) };
}

/** A line for the logs channel, as the outbox holds it. */
export interface LogLine {
  id: number;
  text: string;
  event: LogEvent['kind'] | null;
  card: LogCard | null;
  /** a certain alt or a raid alarm: its post pings the alarm role, when one is set */
  alarm?: boolean;
}

const CARD_KINDS = new Set<string>(['member', 'alt', 'appeal']);

/** A stored log line's text, event and card (a card that does not read as one is left out: the line still posts, as text). */
export function logLineOf(entry: Pick<OutboxEntry, 'id' | 'payload'>): LogLine {
  const { text, event, card, alarm } = entry.payload as { text?: unknown; event?: unknown; card?: unknown; alarm?: unknown };
  const stored = card as Partial<LogCard> | null | undefined;
  const valid = stored && typeof stored === 'object' && CARD_KINDS.has(String(stored.for)) && typeof stored.discordId === 'string';
  return {
    id: entry.id,
    text: String(text ?? ''),
    event: typeof event === 'string' ? (event as LogEvent['kind']) : null,
    card: valid ? (stored as LogCard) : null,
    ...(alarm === true ? { alarm: true } : {}),
  };
}

/** One message to post and the lines (by index) it carries. */
export interface LogPost {
  body: RESTPostAPIChannelMessageJSONBody;
  lines: number[];
}

/**
 * Who a post pings: nobody, or (a post carrying an alarm line, with an alarm role set) that role
 * alone, named in the content. Mentions in the lines themselves are shown, never pinged.
 */
function postMentions(alarm: boolean, pingRole: string | null): { content: string; allowed_mentions: APIAllowedMentions } {
  if (!alarm || !pingRole) return { content: '', allowed_mentions: { parse: [] } };
  return { content: roleMention(pingRole), allowed_mentions: { parse: [], roles: [pingRole] } };
}

const roleMention = (roleId: string) => `<@&${roleId}>`;

/**
 * Turns log lines into messages, in order. Lines without a card are merged into text messages as
 * long as they fit Discord's 2,000 characters (packLogMessages). Consecutive cards share a message
 * up to 5 (5 embeds, each with its row of buttons, within 6,000 characters of embed text, room kept in
 * each for the line naming who acted). Every message but the last is full, or followed by lines of
 * the other sort. With `pingRole` set, a line that is an alarm (a certain alt, a raid alarm) starts a
 * message of its own sort that pings that role (postMentions); other lines never join it, and nobody
 * else is pinged.
 */
export function planLogPosts(lines: readonly LogLine[], websiteUrl: string, pingRole: string | null = null): LogPost[] {
  const posts: LogPost[] = [];
  // with a role to ping, lines are grouped by whether they ping it (each group keeps its order)
  const pings = (line: LogLine) => pingRole !== null && line.alarm === true;
  const sameGroup = (a: LogLine, b: LogLine) => Boolean(a.card) === Boolean(b.card) && pings(a) === pings(b);
  let index = 0;
  while (index < lines.length) {
    const start = index;
    const first = lines[start]!;
    const mentions = postMentions(pings(first), pingRole);
    if (first.card) {
      const embeds: APIEmbed[] = [];
      const components: APIActionRowComponent<APIButtonComponent>[] = [];
      let size = 0;
      while (index < lines.length && sameGroup(first, lines[index]!) && embeds.length < CARDS_PER_MESSAGE) {
        const line = lines[index]!;
        const embed = cardEmbed(line.text, line.event);
        const length = (embed.description?.length ?? 0) + HANDLED_ROOM;
        if (embeds.length > 0 && size + length > MAX_EMBED_TEXT) break;
        embeds.push(embed);
        components.push(cardRow(line.card!, line.id, websiteUrl));
        size += length;
        index++;
      }
      posts.push({
        body: {
          ...(mentions.content ? { content: mentions.content } : {}),
          embeds,
          components,
          allowed_mentions: mentions.allowed_mentions,
        },
        lines: range(start, index),
      });
      continue;
    }
    while (index < lines.length && sameGroup(first, lines[index]!)) index++;
    // the role's mention opens the message, on a line of its own
    const prefix = mentions.content ? `${mentions.content}\n` : '';
    for (const message of packLogMessages(
      lines.slice(start, index).map((l) => l.text),
      MAX_MESSAGE - prefix.length,
    )) {
      posts.push({
        body: { content: `${prefix}${message.content}`.slice(0, MAX_MESSAGE), allowed_mentions: mentions.allowed_mentions },
        lines: message.lines.map((i) => i + start),
      });
    }
  }
  return posts;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}
