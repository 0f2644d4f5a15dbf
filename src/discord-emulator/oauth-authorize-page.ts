import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorContext } from './context';
import { html, readForm, redirect, renderPage, sandboxUserCookie, sendHtml, type RawHtml } from './html-layout';
import { approveAuthorizationRequest, authorizationRequestFrom, parseScopes, validateAuthorizationRequest } from './oauth';

const SCOPE_TEXT: Record<string, string> = {
  identify: 'Access your username, avatar, and banner',
  email: 'Access your email address',
  guilds: 'Know what servers you\u2019re in',
  'guilds.join': 'Join servers for you',
  'role_connections.write': 'Update your connection and metadata for the app',
  'guilds.members.read': 'Read your member info in servers you\u2019re in',
  connections: 'Access your third-party connections',
  openid: 'Sign you in with OpenID Connect',
};

const FORWARDED_PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'prompt',
] as const;

/** Discord's username characters, plus '-' so sandbox names such as 'sandbox-staff' can be typed. */
const USERNAME = /^[a-z0-9_.-]{2,32}$/;

function errorPage(res: ServerResponse, message: string): void {
  sendHtml(
    res,
    400,
    renderPage({
      title: 'Invalid OAuth2 request',
      body: html`<main class="card" aria-labelledby="title"><h1 id="title">Invalid OAuth2 request</h1><p class="error" role="alert">${message}</p></main>`,
    }),
  );
}

function renderForm(context: EmulatorContext, params: URLSearchParams, problem?: string): string {
  const users = [...context.state.users.values()].filter(({ user }) => !user.bot);
  // Pre-select someone who is not in the guild yet (the usual visitor), else "Create a new user".
  const preselected = users.find(({ user }) => !context.state.guild.members.has(user.id))?.user.id ?? 'new';
  const hidden = FORWARDED_PARAMS.filter((name) => params.has(name)).map(
    (name) => html`<input type="hidden" name="${name}" value="${params.get(name) ?? ''}">`,
  );
  const scopes = parseScopes(params.get('scope') ?? '').map((scope) => html`<li>${SCOPE_TEXT[scope] ?? scope}</li>`);
  const options: RawHtml[] = users.map(
    ({ user }) =>
      html`<label class="option"><input type="radio" name="user" value="${user.id}" ${user.id === preselected ? 'checked' : ''}><span>${user.global_name ?? user.username} <span class="muted">@${user.username}</span></span></label>`,
  );
  const body = html`<main class="card" aria-labelledby="title">
<h1 id="title">${context.application.name} wants to access your account</h1>
<p class="muted" style="text-align:center">Sandbox sign-in: pick a fake Discord user or create one.</p>
${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
<form method="post" action="/oauth2/authorize">
${hidden}
<fieldset><legend>Continue as</legend>
${options}
<label class="option"><input type="radio" name="user" value="new" id="user-new" ${preselected === 'new' ? 'checked' : ''}><span>Create a new user</span></label>
<label for="new-username" class="muted">New username (2–32 characters: a–z, 0–9, _ . and -)</label>
<input type="text" id="new-username" name="username" autocomplete="off">
</fieldset>
<fieldset><legend>Network</legend>
<label class="option"><input type="checkbox" name="vpn" value="1"><span>I'm on a VPN</span></label>
</fieldset>
<p class="muted">This will allow the developer of ${context.application.name} to:</p><ul>${scopes}</ul>
<div class="actions"><button type="submit" name="action" value="cancel" class="btn-secondary">Cancel</button>
<button type="submit" name="action" value="authorize">Authorize</button></div>
</form></main>`;
  const script = `document.getElementById('new-username').addEventListener('input', function () { document.getElementById('user-new').checked = this.value.length > 0; });`;
  return renderPage({ title: `Authorize ${context.application.name}`, body, script });
}

function withQuery(uri: string, values: Record<string, string | null>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(values)) if (value !== null) url.searchParams.set(key, value);
  return url.toString();
}

/** GET shows the consent page; POST (the form) redirects to redirect_uri with `code` or `error=access_denied`, echoing `state`. */
export async function handleAuthorizePage(
  context: EmulatorContext,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
): Promise<void> {
  const params = req.method === 'POST' ? await readForm(req) : query;
  const request = authorizationRequestFrom(params);
  const problem = validateAuthorizationRequest(context.oauthApp, { ...request, responseType: request.responseType ?? '' });
  if (problem) return errorPage(res, problem);
  if (req.method !== 'POST') return sendHtml(res, 200, renderForm(context, params));

  const state = params.get('state');
  if (params.get('action') !== 'authorize') {
    return redirect(
      res,
      withQuery(request.redirectUri, {
        error: 'access_denied',
        error_description: 'The resource owner or authorization server denied the request',
        state,
      }),
    );
  }
  const typed = (params.get('username') ?? '').trim().toLowerCase();
  // A typed username wins over the radio choice, so the form also works without its script.
  const choice = typed ? 'new' : (params.get('user') ?? '');
  let userId: string;
  if (choice === 'new') {
    if (!USERNAME.test(typed))
      return sendHtml(res, 400, renderForm(context, params, 'Usernames are 2–32 characters: lowercase letters, digits, _ . and -'));
    userId = (context.state.findUserByName(typed) ?? context.state.createUser({ username: typed })).id;
  } else {
    const record = context.state.users.get(choice);
    if (!record || record.user.bot) return sendHtml(res, 400, renderForm(context, params, 'Pick a user or create one.'));
    userId = record.user.id;
  }
  const record = context.state.users.get(userId);
  if (record) record.onVpn = params.get('vpn') === '1';
  const code = approveAuthorizationRequest(context.state.oauth, context.oauthApp, userId, request, context.now());
  redirect(res, withQuery(request.redirectUri, { code, state }), { 'Set-Cookie': sandboxUserCookie(userId) });
}
