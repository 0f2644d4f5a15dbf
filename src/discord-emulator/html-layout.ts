import type { IncomingMessage, ServerResponse } from 'node:http';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);
}

/** Tagged template that escapes interpolations; nest pre-rendered HTML with `raw()`. */
export function html(
  strings: TemplateStringsArray,
  ...values: Array<string | number | RawHtml | RawHtml[] | null | undefined | false>
): RawHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    if (Array.isArray(value)) out += value.map((item) => item.value).join('');
    else if (value instanceof RawHtml) out += value.value;
    else if (value !== null && value !== undefined && value !== false) out += escapeHtml(String(value));
    out += strings[index + 1] ?? '';
  });
  return new RawHtml(out);
}

export class RawHtml {
  constructor(readonly value: string) {}
}

export const raw = (value: string) => new RawHtml(value);

const STYLES = `
:root { color-scheme: dark; --bg: #313338; --bg2: #2b2d31; --bg3: #1e1f22; --text: #dbdee1; --muted: #949ba4; --blurple: #5865f2;
  --green: #248046; --red: #da373c; --grey: #4e5058; --link: #00a8fc; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 16px/1.375 "gg sans", "Noto Sans", "Helvetica Neue", Helvetica, Arial, sans-serif; }
a { color: var(--link); }
.banner { background: #f0b232; color: #1e1f22; text-align: center; font-weight: 600; padding: 4px 8px; font-size: 14px; }
.card { max-width: 480px; margin: 48px auto; background: var(--bg2); border-radius: 8px; padding: 32px; box-shadow: 0 8px 16px rgb(0 0 0 / .24); }
.card h1 { font-size: 20px; margin: 0 0 8px; text-align: center; }
.muted { color: var(--muted); font-size: 14px; }
fieldset { border: 0; padding: 0; margin: 16px 0; }
legend { font-size: 12px; font-weight: 700; text-transform: uppercase; color: var(--muted); margin-bottom: 8px; }
label.option { display: flex; gap: 10px; align-items: center; padding: 8px 10px; border-radius: 4px; background: var(--bg3); margin-bottom: 6px; cursor: pointer; }
input[type=text], select { width: 100%; padding: 10px; border-radius: 4px; border: 0; background: var(--bg3); color: var(--text); font: inherit; }
button, .button { font: inherit; font-size: 14px; font-weight: 500; border: 0; border-radius: 4px; padding: 8px 16px; color: #fff; background: var(--blurple); cursor: pointer; text-decoration: none; display: inline-block; }
button:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible { outline: 2px solid var(--link); outline-offset: 2px; }
button:disabled { opacity: .5; cursor: not-allowed; }
.btn-secondary { background: var(--grey); } .btn-success { background: var(--green); } .btn-danger { background: var(--red); } .btn-link { background: var(--grey); }
.actions { display: flex; gap: 8px; justify-content: flex-end; margin-top: 24px; }
.layout { display: grid; grid-template-columns: 240px 1fr; min-height: calc(100vh - 26px); }
nav.sidebar { background: var(--bg2); padding: 12px 8px; }
nav.sidebar h2 { font-size: 15px; margin: 4px 8px 12px; }
nav.sidebar a { display: block; color: var(--muted); text-decoration: none; padding: 6px 8px; border-radius: 4px; }
nav.sidebar a[aria-current=page] { background: #404249; color: #fff; }
main { padding: 16px 24px; }
.message { display: flex; gap: 12px; padding: 8px 0; }
.avatar { width: 40px; height: 40px; border-radius: 50%; background: var(--blurple); display: grid; place-items: center; font-weight: 700; flex: none; }
.author { font-weight: 600; } .tag { background: var(--blurple); color: #fff; font-size: 10px; border-radius: 3px; padding: 1px 4px; margin-left: 4px; vertical-align: middle; }
.time { color: var(--muted); font-size: 12px; margin-left: 6px; }
.content { white-space: pre-wrap; word-break: break-word; }
.embed { border-left: 4px solid var(--blurple); background: var(--bg2); border-radius: 4px; padding: 8px 12px; margin-top: 6px; max-width: 520px; }
.embed h3 { margin: 0 0 4px; font-size: 16px; } .embed .field { margin-top: 6px; } .embed .field > b { display: block; font-size: 14px; }
.row { display: flex; gap: 8px; margin-top: 8px; flex-wrap: wrap; }
.ephemeral { border-left: 2px solid var(--blurple); padding-left: 10px; background: rgb(88 101 242 / .08); }
.ephemeral-note { color: var(--muted); font-size: 12px; margin-top: 4px; }
.whoami { background: var(--bg2); border-radius: 8px; padding: 12px; margin-bottom: 16px; display: flex; gap: 12px; align-items: end; flex-wrap: wrap; }
.whoami form { display: flex; gap: 8px; align-items: end; }
.role { display: inline-block; border-radius: 12px; background: var(--bg3); padding: 2px 8px; font-size: 12px; margin: 2px; }
.reply { margin-bottom: 16px; }
.command-box { background: var(--bg2); border-radius: 8px; padding: 12px; margin-top: 16px; }
.command-row { display: flex; gap: 8px; } .command-row select { flex: 1; min-width: 0; }
.command-options .field { margin-top: 10px; } .command-options label { display: block; margin-bottom: 4px; font-size: 14px; }
input[type=number] { width: 100%; padding: 10px; border-radius: 4px; border: 0; background: var(--bg3); color: var(--text); font: inherit; }
.invocation { font-size: 13px; margin-bottom: 2px; }
.mention-time { background: rgb(255 255 255 / .06); border-radius: 3px; padding: 0 2px; }
.mention-role { background: rgb(88 101 242 / .3); color: #c9cdfb; border-radius: 3px; padding: 0 2px; }
.pinged { border-left: 2px solid #f0b232; padding-left: 10px; background: rgb(240 178 50 / .08); }
.pinged-note { color: #f0b232; font-size: 12px; margin-top: 4px; }
@media (max-width: 640px) {
  .layout { grid-template-columns: 1fr; min-height: 0; }
  nav.sidebar { display: flex; flex-wrap: wrap; gap: 2px; }
  nav.sidebar h2 { width: 100%; }
  main { padding: 12px; }
  .whoami form { flex-wrap: wrap; }
  pre, code { white-space: pre-wrap; word-break: break-word; }
}
.error { background: rgb(218 55 60 / .15); border-left: 4px solid var(--red); padding: 8px 12px; border-radius: 4px; }
`;

export function renderPage(input: { title: string; body: RawHtml; script?: string }): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title><style>${STYLES}</style></head><body>
<div class="banner" role="note">Sandbox mode — this is the Gatekeeper Discord emulator, not Discord</div>
${input.body.value}${input.script ? `<script>${input.script}</script>` : ''}</body></html>`;
}

export function sendHtml(res: ServerResponse, status: number, page: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...headers }).end(page);
}

export function redirect(res: ServerResponse, location: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(303, { Location: location, 'Cache-Control': 'no-store', ...headers }).end();
}

export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > 64 * 1024) throw new Error('form too large');
    chunks.push(buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export function readCookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

/** The sandbox identity cookie: which fake user this browser acts as in the sandbox view. */
export const SANDBOX_USER_COOKIE = 'gk_sandbox_user';

export function sandboxUserCookie(userId: string): string {
  return `${SANDBOX_USER_COOKIE}=${encodeURIComponent(userId)}; Path=/; SameSite=Lax; HttpOnly; Max-Age=${60 * 60 * 24 * 30}`;
}
