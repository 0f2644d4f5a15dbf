/**
 * The product's few server-rendered pages (the sign-in's waiting and retry pages, the error
 * page a browser navigation gets): one small centred card in the visitor pages' colours. No
 * script (the CSP allows none inline): a page that must continue reloads with a meta refresh.
 */

const STYLE = `body{font-family:system-ui,sans-serif;background:#0f172a;color:#e2e8f0;margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center}
main{max-width:28rem;padding:2rem;text-align:center}h1{font-size:1.5rem;margin:0 0 .75rem}p{color:#94a3b8;line-height:1.5}
a{color:#c7d2fe}button{font:inherit;font-weight:600;background:#5865f2;color:#fff;border:0;border-radius:.5rem;padding:.75rem 1.5rem;cursor:pointer}
button:focus-visible{outline:2px solid #fff;outline-offset:2px}`;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe to place in HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** A whole page: `title` and `body` are HTML the caller has escaped; `head` adds to the head (a meta refresh). */
export function htmlPage(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">${head}<title>${title}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}
