import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/** One operation of the description, as far as request checks read it. */
export interface SpecParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: object;
}

export interface SpecOperation {
  operationId?: string;
  parameters?: SpecParameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: object }> };
  security?: Array<Record<string, string[]>>;
  /** Our supplement's OAuth2 endpoints answer errors as `{ error, error_description }`. */
  'x-emulator-error-format'?: 'oauth2';
}

export type SpecPathItem = { parameters?: SpecParameter[] } & Partial<Record<'get' | 'put' | 'post' | 'delete' | 'patch', SpecOperation>>;

export interface SpecDocument {
  paths: Record<string, SpecPathItem>;
  components: { schemas: Record<string, object> };
}

/** The vendored description and its supplement live in the sources (`src/…/openapi`), found from here or from dist/. */
function openapiDirectory(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'src', 'discord-emulator', 'openapi');
    if (fs.existsSync(path.join(candidate, 'discord-openapi.json.gz'))) return candidate;
    if (path.dirname(dir) === dir)
      throw new Error('Discord emulator: the vendored OpenAPI description (src/discord-emulator/openapi) is missing');
  }
}

/** The pattern an integer field's text form must match. */
export const INTEGER_TEXT = '^-?[0-9]+$';

/**
 * Rewrites the description's schemas where Discord's own notes on it (the repository's README,
 * "Spec conventions") say the API is more lenient than the JSON Schema reads:
 * - "Our API accepts strings for int fields if they are parseable as ints": an `integer` type
 *   also accepts a string of digits (discord.js sends permissions and bit fields as strings);
 * - "Even though we define anyOf and oneOf unions, they all mean that only one type from the
 *   list can be used": a value matching two all-optional variants is not an error, so every
 *   `oneOf` is checked as `anyOf`.
 * Only schema objects (those with a string or string-array `type`, or a union) are changed; a
 * property that happens to be named `type` holds a schema, not a type name, and is left alone.
 */
export function normaliseSchemas(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) normaliseSchemas(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  const type = schema.type;
  const types =
    typeof type === 'string' ? [type] : Array.isArray(type) && type.every((t) => typeof t === 'string') ? (type as string[]) : null;
  if (types && types.includes('integer') && !types.includes('string')) {
    schema.type = [...types, 'string'];
    if (schema.pattern === undefined) schema.pattern = INTEGER_TEXT;
  }
  if (Array.isArray(schema.oneOf) && schema.anyOf === undefined) {
    schema.anyOf = schema.oneOf;
    delete schema.oneOf;
  }
  for (const value of Object.values(schema)) normaliseSchemas(value);
}

let loaded: SpecDocument | undefined;

/** The description (plus the OAuth2 token endpoints it leaves out), read and normalised once per process. */
export function specDocument(): SpecDocument {
  if (loaded) return loaded;
  const dir = openapiDirectory();
  const document = JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(dir, 'discord-openapi.json.gz'))).toString('utf8')) as SpecDocument;
  const supplement = JSON.parse(fs.readFileSync(path.join(dir, 'discord-oauth2-token.json'), 'utf8')) as SpecDocument;
  Object.assign(document.paths, supplement.paths);
  Object.assign(document.components.schemas, supplement.components.schemas);
  // request bodies and shared schemas only: query and path values arrive as text and are read
  // as numbers by the validator (`limit=1000` must still exceed a maximum of 100)
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) if (!Array.isArray(operation)) normaliseSchemas((operation as SpecOperation).requestBody);
  }
  normaliseSchemas(document.components.schemas);
  loaded = document;
  return document;
}
