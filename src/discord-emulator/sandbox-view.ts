import type { IncomingMessage, ServerResponse } from 'node:http';
import { InteractionResponseType, type APIMessage } from 'discord-api-types/v10';
import type { EmulatorContext } from './context';
import {
  html,
  readCookie,
  readForm,
  redirect,
  renderPage,
  SANDBOX_USER_COOKIE,
  sandboxUserCookie,
  sendHtml,
  type RawHtml,
} from './html-layout';
import type { ClickButtonInput, SlashCommandInput } from './interaction-driver';
import type { InteractionResult } from './interaction-record';
import { CommandFormError, readCommandForm, renderCommandBox, sandboxPeople } from './sandbox-commands';
import { renderMessage } from './sandbox-render';
import { meetsLinkedRole } from './linked-roles';

export interface SandboxViewDeps {
  context: EmulatorContext;
  clickButton(input: ClickButtonInput): Promise<InteractionResult>;
  runSlashCommand(input: SlashCommandInput): Promise<InteractionResult>;
}

/** Path of the sandbox page for a channel; in sandbox mode the app's `webUrl` points here. */
export const sandboxChannelPath = (channelId: string) => `/sandbox/channels/${channelId}`;

/** The page shows the latest messages only, so a busy logs channel stays cheap to poll. */
const MAX_RENDERED_MESSAGES = 100;

const POLL_SCRIPT = `(function () {
  var live = document.getElementById('live');
  if (!live) return;
  var url = live.getAttribute('data-live-url');
  setInterval(function () {
    fetch(url + window.location.search, { credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) { if (text !== null && text !== live.innerHTML) live.innerHTML = text; })
      .catch(function () {});
  }, 1000);
})();
document.querySelectorAll('[data-autosubmit]').forEach(function (el) {
  el.addEventListener('change', function () { if (el.form) el.form.submit(); });
});`;

function currentUserId(context: EmulatorContext, req: IncomingMessage): string | undefined {
  const id = readCookie(req, SANDBOX_USER_COOKIE);
  return id && context.state.users.has(id) ? id : undefined;
}

/** The visible messages of a channel for one viewer: everyone's plus the viewer's own ephemeral ones, oldest first. */
function visibleMessages(context: EmulatorContext, channelId: string, viewerId: string | undefined): APIMessage[] {
  const ephemeral = [...context.state.ephemeralMessages.values()]
    .filter((entry) => entry.userId === viewerId && entry.message.channel_id === channelId)
    .map((entry) => entry.message);
  const recent = context.state.messages(channelId).slice(-MAX_RENDERED_MESSAGES);
  return [...recent, ...ephemeral].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)).slice(-MAX_RENDERED_MESSAGES);
}

function renderInteractionStatus(
  context: EmulatorContext,
  interactionId: string | null,
  viewerId: string | undefined,
  error: string | null,
): RawHtml {
  if (error) return html`<p class="error" role="alert">${error}</p>`;
  const record = interactionId ? context.state.interactions.get(interactionId) : undefined;
  if (!record || record.userId !== viewerId) return html``;
  const botName = context.application.name;
  if (record.acknowledgedAt === null) {
    const expired = Date.now() - record.createdAt > context.settings.interactionAckTimeoutMs;
    return expired ? html`<p class="error">This interaction failed</p>` : html`<p class="muted">Sending command…</p>`;
  }
  const pending =
    record.response &&
    !record.responseEdited &&
    record.followUps.length === 0 &&
    record.callbackType === InteractionResponseType.DeferredChannelMessageWithSource;
  return pending ? html`<p class="muted">${botName} is thinking…</p>` : html`<p class="muted">${botName} replied.</p>`;
}

/**
 * The viewer's linked roles, as Discord's role menu shows them: each role that requires the app's
 * connection, and whether the viewer's role connection meets its requirements.
 */
function renderLinkedRoles(context: EmulatorContext, viewerId: string | undefined): RawHtml {
  const { state } = context;
  if (!viewerId || state.linkedRoles.size === 0) return html``;
  const connection = state.roleConnections.get(viewerId);
  const app = context.application.name;
  const roles = [...state.linkedRoles].map(([roleId, requirements]) => ({
    name: state.guild.roles.get(roleId)?.name ?? roleId,
    met: meetsLinkedRole(state.roleConnectionMetadata, connection, requirements, context.now()),
  }));
  return html`<section aria-label="Linked roles" class="muted">Linked roles (${app}): ${roles.map(
    (role) =>
      html`<span class="role">${role.name}: ${role.met ? 'requirement met' : connection ? 'requirement not met' : `connect ${app} first`}</span> `,
  )}</section>`;
}

function renderLive(context: EmulatorContext, channelId: string, viewerId: string | undefined, query: URLSearchParams): RawHtml {
  const { state } = context;
  const member = viewerId ? state.getMember(viewerId) : undefined;
  const roles = viewerId ? state.memberRoleNames(viewerId) : [];
  const messages = visibleMessages(context, channelId, viewerId);
  return html`<section aria-label="Your roles" class="muted">${
    !viewerId
      ? 'Choose who you are to click buttons.'
      : member
        ? html`Your roles: ${roles.length ? roles.map((name) => html`<span class="role">${name}</span>`) : html`<span class="role">none</span>`}`
        : 'You are not a member of this server yet.'
  }</section>${renderLinkedRoles(context, viewerId)}
<div id="interaction-status" role="status" class="reply">${renderInteractionStatus(context, query.get('interaction'), viewerId, query.get('error'))}</div>
<section aria-label="Messages">${messages.length ? messages.map((message) => renderMessage(state, message, channelId)) : html`<p class="muted">No messages yet.</p>`}</section>`;
}

function renderShell(
  context: EmulatorContext,
  input: { channelId: string | null; viewerId: string | undefined; returnTo: string; main: RawHtml },
): string {
  const { state } = context;
  const channels = [...state.guild.channels.values()].sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
  const body = html`<div class="layout">
<nav class="sidebar" aria-label="Channels"><h2>${state.guild.name}</h2>
${channels.map((channel) => html`<a href="${sandboxChannelPath(channel.id)}" ${channel.id === input.channelId ? html`aria-current="page"` : ''}># ${channel.name}</a>`)}
</nav>
<main>
<div class="whoami"><form method="post" action="/sandbox/identity">
<input type="hidden" name="return_to" value="${input.returnTo}">
<div><label for="whoami-user" class="muted">Who am I</label>
<select id="whoami-user" name="user">${!input.viewerId ? html`<option value="">Choose a user…</option>` : ''}
${sandboxPeople(context).map((person) => html`<option value="${person.value}" ${person.value === input.viewerId ? html`selected` : ''}>${person.label}</option>`)}
</select></div><button type="submit" class="btn-secondary">Switch user</button></form></div>
${input.main}
</main></div>`;
  const channelName = input.channelId ? state.guild.channels.get(input.channelId)?.name : null;
  return renderPage({ title: channelName ? `#${channelName} · ${state.guild.name}` : state.guild.name, body, script: POLL_SCRIPT });
}

/** Serves `/sandbox…`; returns false for paths it does not own. */
export async function handleSandboxView(
  deps: SandboxViewDeps,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
): Promise<boolean> {
  const { context } = deps;
  const { state } = context;
  const viewerId = currentUserId(context, req);
  const method = req.method ?? 'GET';

  if (path === '/sandbox' || path === '/sandbox/') {
    if (method !== 'GET') return false;
    const main = html`<h1>${state.guild.name}</h1><p class="muted">Pick a channel on the left. Buttons on messages act as the user chosen above.</p>`;
    sendHtml(res, 200, renderShell(context, { channelId: null, viewerId, returnTo: '/sandbox', main }));
    return true;
  }
  if (path === '/sandbox/identity' && method === 'POST') {
    const form = await readForm(req);
    const userId = form.get('user') ?? '';
    const returnTo = form.get('return_to') ?? '/sandbox';
    const safeReturn = returnTo.startsWith('/sandbox') ? returnTo : '/sandbox';
    redirect(res, safeReturn, state.users.has(userId) ? { 'Set-Cookie': sandboxUserCookie(userId) } : {});
    return true;
  }
  const match = /^\/sandbox\/channels\/(\d{17,20})(\/live|\/click|\/command)?$/.exec(path);
  if (!match) return false;
  const channelId = match[1] ?? '';
  const channel = state.guild.channels.get(channelId);
  if (!channel) {
    sendHtml(
      res,
      404,
      renderPage({
        title: 'Unknown Channel',
        body: html`<main class="card"><h1>Unknown Channel</h1><p><a href="/sandbox">Back to the sandbox</a></p></main>`,
      }),
    );
    return true;
  }
  const action = match[2];
  if (action === '/click' && method === 'POST') {
    const form = await readForm(req);
    const back = sandboxChannelPath(channelId);
    if (!viewerId) {
      redirect(res, `${back}?error=${encodeURIComponent('Choose who you are first.')}`);
      return true;
    }
    try {
      const result = await deps.clickButton({
        userId: viewerId,
        channelId,
        messageId: form.get('message_id') ?? '',
        customId: form.get('custom_id') ?? '',
      });
      redirect(res, `${back}?interaction=${result.interactionId}`);
    } catch (error) {
      redirect(res, `${back}?error=${encodeURIComponent(error instanceof Error ? error.message : String(error))}`);
    }
    return true;
  }
  if (action === '/command' && method === 'POST') {
    const form = await readForm(req);
    const back = sandboxChannelPath(channelId);
    const again = `command=${encodeURIComponent(form.get('command') ?? '')}`;
    if (!viewerId) {
      redirect(res, `${back}?error=${encodeURIComponent('Choose who you are first.')}`);
      return true;
    }
    try {
      const result = await deps.runSlashCommand(readCommandForm(context, { userId: viewerId, channelId, form }));
      redirect(res, `${back}?interaction=${result.interactionId}&${again}`);
    } catch (error) {
      // the driver's own refusals (an unknown user id, a value that is not a choice) read as Discord's picker would say them
      const message =
        error instanceof CommandFormError
          ? error.message
          : error instanceof Error
            ? error.message.replace(/^runSlashCommand: /, '')
            : String(error);
      redirect(res, `${back}?error=${encodeURIComponent(message)}&${again}`);
    }
    return true;
  }
  if (method !== 'GET') return false;
  if (action === '/live') {
    sendHtml(res, 200, renderLive(context, channelId, viewerId, query).value);
    return true;
  }
  const search = query.toString();
  const main = html`<h1># ${channel.name}</h1>${channel.topic ? html`<p class="muted">${channel.topic}</p>` : ''}
<div id="live" data-live-url="${sandboxChannelPath(channelId)}/live">${renderLive(context, channelId, viewerId, query)}</div>
${renderCommandBox(context, { channelId, viewerId, chosen: query.get('command'), path: sandboxChannelPath(channelId) })}`;
  sendHtml(
    res,
    200,
    renderShell(context, { channelId, viewerId, returnTo: `${sandboxChannelPath(channelId)}${search ? `?${search}` : ''}`, main }),
  );
  return true;
}
