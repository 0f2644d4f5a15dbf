import type { IncomingHttpHeaders } from 'node:http';
import type { RestError } from '../rest-error';
import { auditLogReasonProblem, authorizationProblem, contentTypeProblem, requestMediaType, userAgentProblem } from './header-rules';
import { locateOperation, type LocatedOperation } from './operation-index';
import { undocumentedFields } from './documented-fields';
import { bodySchema, bodyValidator, parametersValidator } from './schema-validators';
import { fieldErrors, refusalFor } from './schema-errors';

/**
 * What a check found: problems (departures from Discord's description), notes (undocumented
 * query parameters and body fields, which Discord ignores: discord.js itself sends
 * `enforce_nonce` with every interaction reply) and, when Discord would refuse the request, its answer.
 */
export interface CheckResult {
  problems: string[];
  notes: string[];
  refusal: RestError | null;
}

export interface HeadCheck extends CheckResult {
  /** The documented operation, null when the method and path are not one. */
  located: LocatedOperation | null;
}

/** Query values by name; a name given more than once is a list. */
function queryObject(query: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    out[name] = values.length === 1 ? (values[0] ?? '') : values;
  }
  return out;
}

function checkParameters(
  located: LocatedOperation,
  place: 'query' | 'path',
  values: Record<string, unknown>,
  problems: string[],
  notes: string[],
): ReturnType<typeof fieldErrors> {
  if (place === 'query') {
    const documented = new Set(located.parameters.filter((p) => p.in === 'query').map((p) => p.name));
    for (const name of Object.keys(values)) if (!documented.has(name)) notes.push(`query parameter "${name}" is not documented`);
  }
  const validate = parametersValidator(located, place);
  if (!validate || validate(values)) return [];
  const errors = fieldErrors(validate.errors);
  for (const error of errors) problems.push(`${place} parameter ${error.field} ${error.message}`);
  return errors;
}

/** Everything known before the body is read: operation, headers, path and query parameters. */
export function checkRequestHead(input: {
  method: string;
  segments: string[];
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}): HeadCheck {
  const problems: string[] = [];
  const notes: string[] = [];
  const userAgent = userAgentProblem(input.headers);
  if (userAgent) problems.push(userAgent);
  const found = locateOperation(input.method, input.segments);
  if (!('located' in found)) {
    problems.push(found.pathKnown ? `${input.method} is not a documented method on this path` : 'the path is not a documented operation');
    return { located: null, problems, notes, refusal: null };
  }
  const { located } = found;
  for (const problem of [authorizationProblem(located, input.headers), auditLogReasonProblem(input.headers)])
    if (problem) problems.push(problem);
  const invalid = [
    ...checkParameters(located, 'path', located.pathValues, problems, notes),
    ...checkParameters(located, 'query', queryObject(input.query), problems, notes),
  ];
  return { located, problems, notes, refusal: invalid.length > 0 ? refusalFor(located, invalid) : null };
}

/**
 * A body the description marks required but whose schema takes an empty object (the unban's
 * `{ properties: {} }`) is not needed: Discord's reference documents no body there, and the
 * description's own notes say to follow the reference where the two differ.
 */
function missingBodyProblem(located: LocatedOperation): string[] {
  if (!located.operation.requestBody?.required) return [];
  const validate = bodyValidator(located, 'application/json');
  return validate && validate({}) ? [] : ['no request body on an operation that requires one'];
}

/** The body as the emulator parsed it: JSON (or a multipart's payload_json), a form, or uploaded files. */
export function checkRequestBody(
  located: LocatedOperation,
  headers: IncomingHttpHeaders,
  parsed: { body: unknown; form: URLSearchParams | undefined; files: unknown[] },
): CheckResult {
  const hasBody = parsed.body !== undefined || parsed.form !== undefined || parsed.files.length > 0;
  if (!hasBody) return { problems: missingBodyProblem(located), notes: [], refusal: null };
  const problems: string[] = [];
  const contentType = contentTypeProblem(located, headers);
  if (contentType) problems.push(contentType);
  const mediaType = requestMediaType(headers);
  if (contentType || !mediaType) return { problems, notes: [], refusal: null };
  const validate = bodyValidator(located, mediaType);
  const data = parsed.form ? Object.fromEntries(parsed.form) : (parsed.body ?? {});
  if (!validate) return { problems, notes: [], refusal: null };
  if (!validate(data)) {
    const errors = fieldErrors(validate.errors);
    for (const error of errors) problems.push(`body ${error.field} ${error.message}`);
    return { problems, notes: [], refusal: refusalFor(located, errors) };
  }
  // a form's fields were checked above (its schema admits no others)
  const notes = parsed.form
    ? []
    : undocumentedFields(bodySchema(located, mediaType), data).map((field) => `body ${field} is not a documented field`);
  return { problems, notes, refusal: null };
}
