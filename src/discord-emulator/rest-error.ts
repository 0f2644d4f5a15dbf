import { RESTJSONErrorCodes } from 'discord-api-types/v10';

/** The nested `errors` object of a 50035 "Invalid Form Body" response, keyed by field path. */
export interface FormErrorTree {
  [key: string]: FormErrorTree | Array<{ code: string; message: string }>;
}

export type RestErrorBody = { message: string; code: number; errors?: FormErrorTree } | { error: string; error_description?: string };

/** A Discord-shaped error response; route handlers throw it and the REST pipeline serialises it. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly body: RestErrorBody,
  ) {
    super('message' in body ? body.message : body.error);
  }
}

const unknown = (code: RESTJSONErrorCodes, message: string) => new RestError(404, { message, code });

export const unauthorized = () => new RestError(401, { message: '401: Unauthorized', code: 0 });
export const notFound = () => new RestError(404, { message: '404: Not Found', code: 0 });
export const methodNotAllowed = () => new RestError(405, { message: '405: Method Not Allowed', code: 0 });
export const missingPermissions = () => new RestError(403, { message: 'Missing Permissions', code: RESTJSONErrorCodes.MissingPermissions });
export const missingAccess = () => new RestError(403, { message: 'Missing Access', code: RESTJSONErrorCodes.MissingAccess });
export const unknownMember = () => unknown(RESTJSONErrorCodes.UnknownMember, 'Unknown Member');
export const unknownUser = () => unknown(RESTJSONErrorCodes.UnknownUser, 'Unknown User');
export const unknownChannel = () => unknown(RESTJSONErrorCodes.UnknownChannel, 'Unknown Channel');
export const unknownRole = () => unknown(RESTJSONErrorCodes.UnknownRole, 'Unknown Role');
export const unknownMessage = () => unknown(RESTJSONErrorCodes.UnknownMessage, 'Unknown Message');
export const unknownGuild = () => unknown(RESTJSONErrorCodes.UnknownGuild, 'Unknown Guild');
export const unknownInteraction = () => unknown(RESTJSONErrorCodes.UnknownInteraction, 'Unknown interaction');
export const unknownWebhook = () => unknown(RESTJSONErrorCodes.UnknownWebhook, 'Unknown Webhook');
export const unknownBan = () => unknown(RESTJSONErrorCodes.UnknownBan, 'Unknown Ban');
export const unknownCommand = () => unknown(RESTJSONErrorCodes.UnknownApplicationCommand, 'Unknown application command');

export const invalidFormBody = (errors: FormErrorTree) =>
  new RestError(400, { message: 'Invalid Form Body', code: RESTJSONErrorCodes.InvalidFormBodyOrContentType, errors });

/** A 50035 error for one field, e.g. `fieldError('access_token', 'BASE_TYPE_REQUIRED', 'This field is required')`. */
export function fieldError(path: string, code: string, message: string): RestError {
  const tree: FormErrorTree = {};
  let node = tree;
  const parts = path.split('.');
  parts.forEach((part, index) => {
    if (index === parts.length - 1) {
      node[part] = { _errors: [{ code, message }] };
    } else {
      const next: FormErrorTree = {};
      node[part] = next;
      node = next;
    }
  });
  return invalidFormBody(tree);
}

export const oauthError = (status: number, error: string, description?: string) =>
  new RestError(status, description === undefined ? { error } : { error, error_description: description });
