import {
  ApplicationCommandOptionType,
  ButtonStyle,
  ComponentType,
  InteractionType,
  MessageFlags,
  type APIEmbed,
  type APIMessage,
} from 'discord-api-types/v10';
import { escapeHtml, html, raw, type RawHtml } from './html-layout';
import type { EmulatorState } from './state';

const BUTTON_CLASS: Partial<Record<ButtonStyle, string>> = {
  [ButtonStyle.Primary]: '',
  [ButtonStyle.Secondary]: 'btn-secondary',
  [ButtonStyle.Success]: 'btn-success',
  [ButtonStyle.Danger]: 'btn-danger',
};

/** Discord only accepts http(s) links in embeds and link buttons; anything else is shown as text. */
const isWebUrl = (url: string | undefined): url is string => url !== undefined && /^https?:\/\//i.test(url);

/** How long ago (or until) a moment is, in Discord's relative words. */
function relativeTime(at: Date, now = Date.now()): string {
  const seconds = Math.round((at.getTime() - now) / 1000);
  const units: Array<[number, string]> = [
    [31_536_000, 'year'],
    [2_592_000, 'month'],
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  const [size, unit] = units.find(([s]) => Math.abs(seconds) >= s) ?? [1, 'second'];
  const count = Math.round(Math.abs(seconds) / size);
  const phrase = `${count} ${unit}${count === 1 ? '' : 's'}`;
  return seconds < 0 ? `${phrase} ago` : `in ${phrase}`;
}

/**
 * A Discord timestamp tag (`<t:1700000000:f>`) as Discord shows it, in UTC here (Discord uses
 * the reader's own time zone), with the exact moment on hover.
 */
function renderTimestamp(seconds: string, style: string | undefined): string {
  const at = new Date(Number(seconds) * 1000);
  if (Number.isNaN(at.getTime())) return `&lt;t:${seconds}${style ? `:${style}` : ''}&gt;`;
  const formats: Record<string, Intl.DateTimeFormatOptions> = {
    t: { timeStyle: 'short' },
    T: { timeStyle: 'medium' },
    d: { dateStyle: 'short' },
    D: { dateStyle: 'long' },
    f: { dateStyle: 'long', timeStyle: 'short' },
    F: { dateStyle: 'full', timeStyle: 'short' },
  };
  const text =
    style === 'R' ? relativeTime(at) : `${at.toLocaleString('en-GB', { ...(formats[style ?? 'f'] ?? formats.f), timeZone: 'UTC' })} UTC`;
  return `<time class="mention-time" datetime="${at.toISOString()}" title="${escapeHtml(at.toUTCString())}">${escapeHtml(text)}</time>`;
}

const roleName = (state: EmulatorState, id: string) => state.guild.roles.get(id)?.name ?? 'deleted-role';

/** Escaped content with Discord's mentions resolved to names, timestamps formatted, **bold**, `code` and [links](https://…). */
export function renderContent(state: EmulatorState, content: string): RawHtml {
  let out = escapeHtml(content);
  out = out.replace(/&lt;t:(-?\d{1,13})(?::([tTdDfFR]))?&gt;/g, (_, seconds: string, style: string | undefined) =>
    renderTimestamp(seconds, style),
  );
  out = out.replace(
    /&lt;@!?(\d{17,20})&gt;/g,
    (_, id: string) => `<b>@${escapeHtml(state.users.get(id)?.user.username ?? 'unknown-user')}</b>`,
  );
  out = out.replace(/&lt;@&amp;(\d{17,20})&gt;/g, (_, id: string) => `<b class="mention-role">@${escapeHtml(roleName(state, id))}</b>`);
  out = out.replace(/&lt;#(\d{17,20})&gt;/g, (_, id: string) => `<b>#${escapeHtml(state.guild.channels.get(id)?.name ?? 'unknown')}</b>`);
  out = out.replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>');
  out = out.replace(/`([^`]+)`/g, '<code>$1</code>');
  out = out.replace(/\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g, '<a href="$2" target="_blank" rel="noopener">$1</a>');
  return raw(out);
}

function renderEmbed(state: EmulatorState, embed: APIEmbed): RawHtml {
  const color = embed.color === undefined ? '' : `border-left-color:#${embed.color.toString(16).padStart(6, '0')}`;
  return html`<div class="embed" style="${color}">
${embed.author?.name ? html`<div class="muted">${embed.author.name}</div>` : ''}
${embed.title ? html`<h3>${isWebUrl(embed.url) ? html`<a href="${embed.url}" target="_blank" rel="noopener">${embed.title}</a>` : embed.title}</h3>` : ''}
${embed.description ? html`<div class="content">${renderContent(state, embed.description)}</div>` : ''}
${(embed.fields ?? []).map((field) => html`<div class="field"><b>${field.name}</b><span class="content">${renderContent(state, field.value)}</span></div>`)}
${embed.footer?.text ? html`<div class="muted" style="margin-top:6px">${embed.footer.text}</div>` : ''}
</div>`;
}

interface ComponentNode {
  type?: number;
  style?: number;
  custom_id?: string;
  url?: string;
  label?: string;
  disabled?: boolean;
  placeholder?: string;
  content?: string;
  emoji?: { name?: string | null; id?: string | null };
  components?: ComponentNode[];
  accessory?: ComponentNode;
}

/** Buttons become real submit buttons of the message's form; link buttons are links; selects are shown but not emulated. */
function renderComponent(state: EmulatorState, node: ComponentNode): RawHtml {
  switch (node.type) {
    case ComponentType.ActionRow:
      return html`<div class="row">${(node.components ?? []).map((child) => renderComponent(state, child))}</div>`;
    case ComponentType.Button: {
      const label = `${node.emoji?.name && !node.emoji.id ? `${node.emoji.name} ` : ''}${node.label ?? ''}`.trim() || 'Button';
      if (node.style === ButtonStyle.Link && isWebUrl(node.url)) {
        return html`<a class="button btn-link" href="${node.url}" target="_blank" rel="noopener">${label} ↗</a>`;
      }
      if (!node.custom_id) return html`<button type="button" disabled>${label}</button>`;
      const css = BUTTON_CLASS[node.style as ButtonStyle] ?? '';
      return html`<button type="submit" name="custom_id" value="${node.custom_id}" class="${css}" ${node.disabled ? raw('disabled') : ''}>${label}</button>`;
    }
    case ComponentType.TextDisplay:
      return html`<div class="content">${renderContent(state, node.content ?? '')}</div>`;
    case ComponentType.Separator:
      return html`<hr>`;
    case ComponentType.Section:
    case ComponentType.Container:
      return html`<div class="embed">${(node.components ?? []).map((child) => renderComponent(state, child))}${node.accessory ? renderComponent(state, node.accessory) : ''}</div>`;
    case ComponentType.StringSelect:
    case ComponentType.UserSelect:
    case ComponentType.RoleSelect:
    case ComponentType.MentionableSelect:
    case ComponentType.ChannelSelect:
      return html`<select disabled aria-label="${node.placeholder ?? 'Select menu'}"><option>${node.placeholder ?? 'Select menu'} (not emulated)</option></select>`;
    default:
      return html``;
  }
}

/**
 * "@bob used /privacy show" above a reply to a slash command, as Discord shows it: the command
 * and its subcommands, read from the interaction the message answers.
 */
function renderInvocation(state: EmulatorState, message: APIMessage): RawHtml {
  const metadata = message.interaction_metadata;
  if (metadata?.type !== InteractionType.ApplicationCommand) return html``;
  const payload = state.interactions.get(metadata.id)?.payload;
  if (payload?.type !== InteractionType.ApplicationCommand) return html``;
  const words = [payload.data.name];
  let options = 'options' in payload.data ? payload.data.options : undefined;
  for (
    let nested = options?.[0];
    nested && (nested.type === ApplicationCommandOptionType.SubcommandGroup || nested.type === ApplicationCommandOptionType.Subcommand);
    nested = options?.[0]
  ) {
    words.push(nested.name);
    options = nested.options;
  }
  const user = state.users.get(metadata.user.id)?.user ?? metadata.user;
  return html`<div class="muted invocation">↳ <b>@${user.username}</b> used <code>/${words.join(' ')}</code></div>`;
}

export function renderMessage(state: EmulatorState, message: APIMessage, channelId: string): RawHtml {
  const author = message.author;
  const name = author.global_name ?? author.username;
  const ephemeral = ((message.flags ?? 0) & MessageFlags.Ephemeral) !== 0;
  const loading = ((message.flags ?? 0) & MessageFlags.Loading) !== 0;
  const components = (message.components ?? []) as ComponentNode[];
  const time = new Date(message.timestamp);
  // the roles the message pinged (its allowed_mentions let them): highlighted as Discord does for their members
  const pinged = (message.mention_roles ?? []).map((id) => `@${roleName(state, id)}`);
  return html`<article class="message ${ephemeral ? 'ephemeral' : ''} ${pinged.length > 0 ? 'pinged' : ''}" aria-label="Message from ${name}" data-message-id="${message.id}">
<div class="avatar" aria-hidden="true">${name.slice(0, 2).toUpperCase()}</div>
<div>
${renderInvocation(state, message)}
<div><span class="author">${name}</span>${author.bot ? html`<span class="tag">APP</span>` : ''}<time class="time" datetime="${message.timestamp}">${time.toLocaleString('en-GB', { timeZone: 'UTC' })} UTC</time>${message.edited_timestamp ? html`<span class="time">(edited)</span>` : ''}</div>
${loading ? html`<div class="muted">${name} is thinking…</div>` : ''}
${message.content ? html`<div class="content">${renderContent(state, message.content)}</div>` : ''}
${message.embeds.map((embed) => renderEmbed(state, embed))}
${
  components.length > 0
    ? html`<form method="post" action="/sandbox/channels/${channelId}/click"><input type="hidden" name="message_id" value="${message.id}">${components.map((c) => renderComponent(state, c))}</form>`
    : ''
}
${message.attachments.map((file) => html`<div class="muted">📎 ${file.filename}</div>`)}
${ephemeral ? html`<div class="ephemeral-note">Only you can see this</div>` : ''}
${pinged.length > 0 ? html`<div class="pinged-note">Pinged ${pinged.join(', ')}</div>` : ''}
</div></article>`;
}
