import type { IncomingHttpHeaders } from 'node:http';
import type { LocatedOperation } from './operation-index';

/** `DiscordBot ($url, $versionNumber)`, as Discord's reference asks of every request, anything may follow. */
const DISCORD_BOT_USER_AGENT = /^DiscordBot \(\S+, \S+\)/;

/** What encodeURIComponent leaves as is, and %XX escapes: a header value that is URL-encoded. */
const URL_ENCODED = /^(?:[A-Za-z0-9\-_.!~*'()]|%[0-9A-Fa-f]{2})*$/;

/** Discord keeps at most 512 characters of an audit-log reason. */
const MAX_AUDIT_LOG_REASON = 512;

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

export function userAgentProblem(headers: IncomingHttpHeaders): string | null {
  const userAgent = header(headers, 'user-agent');
  if (!userAgent) return 'no User-Agent header (Discord asks for "DiscordBot ($url, $versionNumber)")';
  return DISCORD_BOT_USER_AGENT.test(userAgent) ? null : 'User-Agent is not in the form "DiscordBot ($url, $versionNumber)"';
}

/** An operation whose security lists no empty requirement needs credentials in Authorization. */
export function authorizationProblem(located: LocatedOperation, headers: IncomingHttpHeaders): string | null {
  const security = located.operation.security;
  if (!security || security.some((requirement) => Object.keys(requirement).length === 0)) return null;
  return header(headers, 'authorization') ? null : 'no Authorization header on an operation that requires one';
}

export function auditLogReasonProblem(headers: IncomingHttpHeaders): string | null {
  const reason = header(headers, 'x-audit-log-reason');
  if (reason === undefined) return null;
  if (!URL_ENCODED.test(reason)) return 'X-Audit-Log-Reason is not URL-encoded';
  let decoded: string;
  try {
    decoded = decodeURIComponent(reason);
  } catch {
    return 'X-Audit-Log-Reason is not valid URL-encoded UTF-8';
  }
  return decoded.length > MAX_AUDIT_LOG_REASON ? `X-Audit-Log-Reason is longer than ${MAX_AUDIT_LOG_REASON} characters` : null;
}

/** The media type of a request with a body (without parameters such as boundary or charset), or null when it has no body. */
export function requestMediaType(headers: IncomingHttpHeaders): string | null {
  const type = header(headers, 'content-type');
  return type ? (type.split(';')[0] ?? '').trim().toLowerCase() : null;
}

/** A body needs a Content-Type the operation documents (a missing body is the caller's check: see request-check.ts). */
export function contentTypeProblem(located: LocatedOperation, headers: IncomingHttpHeaders): string | null {
  const content = located.operation.requestBody?.content;
  if (!content) return 'a request body on an operation that takes none';
  const mediaType = requestMediaType(headers);
  if (!mediaType) return 'a request body without a Content-Type header';
  return mediaType in content ? null : `Content-Type ${mediaType} is not one this operation accepts (${Object.keys(content).join(', ')})`;
}
