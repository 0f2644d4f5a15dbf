import { z } from 'zod';
import { invalidFormBody, type FormErrorTree } from './rest-error';

/**
 * An integer field as Discord reads it: a number, or a string of digits ("Our API accepts strings
 * for int fields if they are parseable as ints", the notes of Discord's OpenAPI description).
 */
export function discordInteger() {
  return z.preprocess((value) => (typeof value === 'string' && /^-?[0-9]+$/.test(value) ? Number(value) : value), z.number().int());
}

/** Discord's 50035 error codes for the zod issues we can meet. */
function discordCode(issue: z.core.$ZodIssue, input: unknown): { code: string; message: string } {
  switch (issue.code) {
    case 'too_big':
      return { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${String(issue.maximum)} or fewer in length.` };
    case 'too_small':
      return { code: 'BASE_TYPE_MIN_LENGTH', message: `Must be ${String(issue.minimum)} or more in length.` };
    case 'invalid_type':
      return input === undefined
        ? { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }
        : { code: `${issue.expected.toUpperCase()}_TYPE_COERCE`, message: `Value is not ${issue.expected}.` };
    default:
      return { code: 'BASE_TYPE_BAD_VALUE', message: issue.message };
  }
}

function valueAt(body: unknown, path: PropertyKey[]): unknown {
  let node = body;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** Parses a request body; a mismatch becomes Discord's `400 {code: 50035, errors: {field: {_errors: [...]}}}`. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const tree: FormErrorTree = {};
  for (const issue of result.error.issues) {
    let node = tree;
    const path = issue.path.length > 0 ? issue.path.map(String) : ['_root'];
    path.forEach((key, index) => {
      if (index === path.length - 1) {
        const leaf = (node[key] ??= { _errors: [] });
        if (!Array.isArray(leaf) && Array.isArray(leaf._errors)) leaf._errors.push(discordCode(issue, valueAt(body, issue.path)));
      } else {
        const next = node[key];
        node = next && !Array.isArray(next) ? next : (node[key] = {});
      }
    });
  }
  throw invalidFormBody(tree);
}
