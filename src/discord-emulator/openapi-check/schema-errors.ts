import type { ErrorObject } from 'ajv';
import { invalidFormBody, oauthError, type FormErrorTree, type RestError } from '../rest-error';
import type { LocatedOperation } from './operation-index';
import { INTEGER_TEXT } from './spec-document';

/** Discord's error codes in a 50035 body, by the JSON Schema keyword that failed. */
const CODES: Record<string, string> = {
  required: 'BASE_TYPE_REQUIRED',
  type: 'BASE_TYPE_INVALID',
  enum: 'BASE_TYPE_CHOICES',
  const: 'BASE_TYPE_CHOICES',
  maxLength: 'BASE_TYPE_MAX_LENGTH',
  minLength: 'BASE_TYPE_MIN_LENGTH',
  maxItems: 'BASE_TYPE_MAX_LENGTH',
  minItems: 'BASE_TYPE_MIN_LENGTH',
  maximum: 'NUMBER_TYPE_MAX',
  minimum: 'NUMBER_TYPE_MIN',
  pattern: 'BASE_TYPE_INVALID',
  additionalProperties: 'UNKNOWN_FIELD',
};

export interface FieldError {
  /** `options.0.name`; the part of the request (`query`, `body`) is the caller's. */
  field: string;
  code: string;
  message: string;
}

/**
 * The errors worth reporting: all of them, except that a failed union reports every variant's
 * errors plus its own summary, so then only the deepest ones (the field that is wrong in the
 * closest variant) are kept.
 * Messages name fields and rules, never the values sent (they may be secrets).
 */
export function fieldErrors(errors: ErrorObject[] | null | undefined): FieldError[] {
  const union = (errors ?? []).some((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const all = (errors ?? []).filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'allOf' && e.keyword !== 'if');
  const pathOf = (e: ErrorObject) => {
    const base = e.dataPath
      .split('/')
      .filter(Boolean)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
    const missing = (e.params as { missingProperty?: string }).missingProperty;
    const extra = (e.params as { additionalProperty?: string }).additionalProperty;
    return [
      ...base,
      ...(e.keyword === 'required' && missing ? [missing] : []),
      ...(e.keyword === 'additionalProperties' && extra ? [extra] : []),
    ];
  };
  const depth = Math.max(0, ...all.map((e) => pathOf(e).length));
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const error of all) {
    const path = pathOf(error);
    if (union && path.length !== depth) continue;
    const field = path.join('.') || '_root';
    const integerText = error.keyword === 'pattern' && (error.params as { pattern?: string }).pattern === INTEGER_TEXT;
    const message =
      error.keyword === 'additionalProperties'
        ? 'is not a documented field'
        : integerText
          ? 'should be an integer'
          : (error.message ?? 'is invalid');
    const key = `${field} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, code: integerText ? 'NUMBER_TYPE_COERCE' : (CODES[error.keyword] ?? 'BASE_TYPE_INVALID'), message });
  }
  return out.slice(0, 5);
}

/** Discord's 400 for the errors: 50035 "Invalid Form Body" with a tree by field, or OAuth2's `invalid_request`. */
export function refusalFor(located: LocatedOperation, errors: FieldError[]): RestError {
  if (located.operation['x-emulator-error-format'] === 'oauth2') {
    return oauthError(400, 'invalid_request', errors.map((e) => `${e.field} ${e.message}`).join('; '));
  }
  const tree: FormErrorTree = {};
  for (const error of errors) {
    let node = tree;
    const parts = error.field.split('.');
    parts.forEach((part, index) => {
      if (index === parts.length - 1) {
        const leaf = (node[part] ??= { _errors: [] }) as FormErrorTree;
        const list = (leaf._errors ??= []) as Array<{ code: string; message: string }>;
        list.push({ code: error.code, message: error.message });
      } else {
        node = (node[part] ??= {}) as FormErrorTree;
      }
    });
  }
  return invalidFormBody(tree);
}
