import Ajv from 'ajv';
import type { LocatedOperation } from './operation-index';
import { specDocument } from './spec-document';

/**
 * JSON Schema validation of request parts with ajv. The installed ajv is 6.x (draft-07): the
 * description is OpenAPI 3.1 (JSON Schema 2020-12), but the keywords its request schemas use
 * (type arrays for nullable fields, const, enum, anyOf/oneOf/allOf, min/max, patterns,
 * additionalProperties) mean the same in draft-07; `contentEncoding` is an annotation either way.
 *
 * Each of the description's shared schemas (`#/components/schemas/X`) is added to ajv on its
 * own, as `discord-schema:X`, when an operation first needs it, and compiled once: the message,
 * webhook and interaction-callback bodies share their large component unions. Compiling the
 * interaction callback's body this way takes ~0.25 s instead of ~0.7 s through one whole document.
 */

const COMPONENT_PREFIX = '#/components/schemas/';
const COMPONENT_ID = 'discord-schema:';

/** The description's own formats: integer widths and snowflakes are checked by type/pattern already. */
const FORMATS = ['int32', 'int64', 'double', 'snowflake', 'nonce'];

export type ValidateFunction = Ajv.ValidateFunction;

interface Validation {
  ajv: Ajv.Ajv;
  /** Component names already added to this instance. */
  added: Set<string>;
}

function createValidation(coerce: boolean): Validation {
  const ajv = new Ajv({
    allErrors: true,
    jsonPointers: true,
    unknownFormats: 'ignore',
    validateSchema: false,
    coerceTypes: coerce ? 'array' : false,
    addUsedSchema: false,
  });
  for (const format of FORMATS) ajv.addFormat(format, () => true);
  return { ajv, added: new Set() };
}

let strict: Validation | undefined;
let coercing: Validation | undefined;
/** JSON bodies: values are checked as sent. */
const strictValidation = () => (strict ??= createValidation(false));
/** Query strings and form bodies: every value arrives as text, so `limit=10` is read as the integer 10. */
const coercingValidation = () => (coercing ??= createValidation(true));

/** A copy of a schema with its `#/components/schemas/X` references renamed to the added schemas' ids. */
function withComponentRefs(schema: unknown, found: Set<string>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => withComponentRefs(item, found));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_PREFIX)) {
      const name = value.slice(COMPONENT_PREFIX.length);
      found.add(name);
      out[key] = COMPONENT_ID + name;
    } else {
      out[key] = withComponentRefs(value, found);
    }
  }
  return out;
}

/** Adds the components a schema refers to (and theirs), each once per ajv instance. */
function addComponents(validation: Validation, names: Set<string>): void {
  const pending = [...names];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (validation.added.has(name)) continue;
    validation.added.add(name);
    const schema = specDocument().components.schemas[name];
    if (!schema) throw new Error(`Discord emulator: the OpenAPI description has no schema ${name}`);
    const refs = new Set<string>();
    validation.ajv.addSchema(withComponentRefs(schema, refs) as object, COMPONENT_ID + name);
    pending.push(...refs);
  }
}

function compile(validation: Validation, schema: object): ValidateFunction {
  const refs = new Set<string>();
  const prepared = withComponentRefs(schema, refs) as object;
  addComponents(validation, refs);
  return validation.ajv.compile(prepared);
}

/** Compiled validators by operation and request part, made on first use: most operations are never called. */
const cache = new Map<string, ValidateFunction | null>();

function cached(key: string, build: () => ValidateFunction | null): ValidateFunction | null {
  if (!cache.has(key)) cache.set(key, build());
  return cache.get(key) ?? null;
}

/** The operation's query or path parameters as one object schema (undocumented names are checked separately). */
export function parametersValidator(located: LocatedOperation, place: 'query' | 'path'): ValidateFunction | null {
  return cached(`${located.method} ${located.template} ${place}`, () => {
    const parameters = located.parameters.filter((p) => p.in === place);
    if (parameters.length === 0) return null;
    const properties: Record<string, unknown> = {};
    for (const parameter of parameters) properties[parameter.name] = parameter.schema ?? {};
    const required = parameters.filter((p) => p.required).map((p) => p.name);
    return compile(coercingValidation(), { type: 'object', properties, ...(required.length ? { required } : {}) });
  });
}

/**
 * The request body's schema for one media type (`application/json` or a form), or null when
 * undocumented. A multipart body's JSON (`payload_json`) is checked against the operation's
 * JSON schema: the multipart one is that schema plus the `files[n]` parts.
 */
export function bodySchema(located: LocatedOperation, mediaType: string): object | null {
  const type = mediaType === 'multipart/form-data' ? 'application/json' : mediaType;
  return located.operation.requestBody?.content[type]?.schema ?? null;
}

export function bodyValidator(located: LocatedOperation, mediaType: string): ValidateFunction | null {
  const type = mediaType === 'multipart/form-data' ? 'application/json' : mediaType;
  return cached(`${located.method} ${located.template} body ${type}`, () => {
    const schema = bodySchema(located, type);
    if (!schema) return null;
    return compile(type === 'application/x-www-form-urlencoded' ? coercingValidation() : strictValidation(), schema);
  });
}

const variantValidators = new WeakMap<object, ValidateFunction>();

/** Whether a JSON value matches one schema of the description (a union's variant), as sent. */
export function matchesSchema(schema: object, value: unknown): boolean {
  let validate = variantValidators.get(schema);
  if (!validate) {
    const ref = (schema as { $ref?: unknown }).$ref;
    const name = typeof ref === 'string' && ref.startsWith(COMPONENT_PREFIX) ? ref.slice(COMPONENT_PREFIX.length) : null;
    const validation = strictValidation();
    if (name) {
      addComponents(validation, new Set([name]));
      validate = validation.ajv.getSchema(COMPONENT_ID + name);
    }
    validate ??= compile(validation, schema);
    variantValidators.set(schema, validate);
  }
  return validate(value) === true;
}

/** The shared schema a `$ref` names, or the schema itself. */
export function resolveSchema(schema: unknown): Record<string, unknown> | null {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return null;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith(COMPONENT_PREFIX))
    return (specDocument().components.schemas[ref.slice(COMPONENT_PREFIX.length)] as Record<string, unknown> | undefined) ?? null;
  return schema as Record<string, unknown>;
}
