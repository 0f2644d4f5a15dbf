/** The content codings the server has stored copies for, best first. */
export type StoredEncoding = 'br' | 'gzip';
const PREFERENCE: StoredEncoding[] = ['br', 'gzip'];

/**
 * The best stored coding an `Accept-Encoding` header allows, or undefined for the file as
 * is. A coding is acceptable when named (or covered by `*`) with a q-value above 0; among
 * acceptable ones the higher q wins, and on a tie brotli (smaller) before gzip.
 */
export function chooseEncoding(header: string | undefined, available: ReadonlySet<StoredEncoding>): StoredEncoding | undefined {
  if (!header) return undefined;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    let q = 1;
    for (const param of params) {
      const match = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(param);
      if (match) q = Number(match[1]);
    }
    weights.set(name.trim(), Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0);
  }
  const weightOf = (coding: string) =>
    weights.get(coding) ?? (coding === 'gzip' ? weights.get('x-gzip') : undefined) ?? weights.get('*') ?? 0;
  let best: StoredEncoding | undefined;
  let bestQ = 0;
  for (const coding of PREFERENCE) {
    const q = weightOf(coding);
    if (available.has(coding) && q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}
