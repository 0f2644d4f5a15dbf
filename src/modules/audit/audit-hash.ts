import crypto from 'node:crypto';

export const GENESIS_HASH = '0'.repeat(64);

export interface AuditHashInput {
  at: Date;
  actorType: string;
  actorId: string | null;
  actorName: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: unknown;
}

/** JSON with sorted keys, so the same content always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * SHA-256 of a row's content alone, computed by the database when the row is appended
 * (audit_append): it lets verification catch a row edited before the sealer chained it.
 */
export function hashAuditContent(entry: AuditHashInput): string {
  return crypto
    .createHash('sha256')
    .update(canonicalJson({ ...entry, at: entry.at.toISOString() }))
    .digest('hex');
}

/** Each row's hash covers its content and the previous row's hash: editing history breaks the chain. */
export function hashAuditEntry(prevHash: string, entry: AuditHashInput): string {
  const content = canonicalJson({ ...entry, at: entry.at.toISOString() });
  return crypto.createHash('sha256').update(prevHash).update('\n').update(content).digest('hex');
}

const AT_PLACEHOLDER = '\u0000at\u0000';

/**
 * The canonical JSON `hashAuditEntry` hashes, cut around the value of "at" (what the
 * database fills in when it appends the row): `beforeAt` ends with `"at":`, `afterAt`
 * starts after the value. "at" is the first top-level key after the fixed actor keys, so
 * the first occurrence of the placeholder is the top-level one (a string value holding
 * it would be escaped differently).
 */
export function splitHashInputAtTime(entry: Omit<AuditHashInput, 'at'>): { beforeAt: string; afterAt: string } {
  const json = canonicalJson({ ...entry, at: AT_PLACEHOLDER });
  const marker = `"at":${JSON.stringify(AT_PLACEHOLDER)}`;
  const index = json.indexOf(marker);
  if (index < 0) throw new Error('canonical audit JSON has no "at" key');
  return { beforeAt: json.slice(0, index + '"at":'.length), afterAt: json.slice(index + marker.length) };
}
