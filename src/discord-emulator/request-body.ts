import type { IncomingMessage } from 'node:http';
import { RESTJSONErrorCodes } from 'discord-api-types/v10';
import type { UploadedFile } from './message-factory';
import { RestError } from './rest-error';

const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface ParsedBody {
  body: unknown;
  form: URLSearchParams | undefined;
  files: UploadedFile[];
}

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES)
      throw new RestError(413, { message: 'Request entity too large', code: RESTJSONErrorCodes.RequestEntityTooLarge });
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

const invalidJson = () =>
  new RestError(400, { message: 'The request body contains invalid JSON.', code: RESTJSONErrorCodes.RequestBodyContainsInvalidJSON });

/** JSON, form-urlencoded (OAuth2) and multipart (messages with files: `payload_json` + `files[n]`), as Discord accepts them. */
export async function parseRequestBody(req: IncomingMessage): Promise<ParsedBody> {
  const raw = await readRaw(req);
  const contentType = (req.headers['content-type'] ?? '').toLowerCase();
  if (raw.length === 0) return { body: undefined, form: undefined, files: [] };
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    return { body: undefined, form: new URLSearchParams(raw.toString('utf8')), files: [] };
  }
  if (contentType.startsWith('multipart/form-data')) {
    // The WHATWG Request parser (undici, built into Node) reads multipart bodies without a dependency.
    const formData = await new Request('http://emulator.local/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: raw,
    }).formData();
    const files: UploadedFile[] = [];
    let body: unknown;
    for (const [key, value] of formData.entries()) {
      if (typeof value === 'string') {
        if (key === 'payload_json') body = parseJson(value);
      } else {
        files.push({ name: value.name, contentType: value.type || 'application/octet-stream', size: value.size });
      }
    }
    return { body, form: undefined, files };
  }
  return { body: parseJson(raw.toString('utf8')), form: undefined, files: [] };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidJson();
  }
}
