import { ApplicationCommandType, type APIApplicationCommand, type APIApplicationCommandOption } from 'discord-api-types/v10';
import { z } from 'zod';
import type { EmulatorContext } from '../context';
import { parseBody } from '../form-validation';
import { requireApplication, requireGuild } from '../guild-guards';
import { fieldError, unknownCommand } from '../rest-error';
import { created, noContent, ok, type RouteDefinition } from '../rest-router';
import { generateSnowflake } from '../snowflake';

const CHAT_INPUT_NAME = /^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

interface OptionShape {
  type: number;
  name: string;
  description: string;
  options?: OptionShape[] | undefined;
}

const optionSchema: z.ZodType<OptionShape> = z.lazy(() =>
  z.looseObject({
    type: z.number().int().min(1).max(11),
    name: z.string().regex(CHAT_INPUT_NAME),
    description: z.string().min(1).max(100),
    required: z.boolean().optional(),
    choices: z
      .array(z.looseObject({ name: z.string().min(1).max(100), value: z.union([z.string(), z.number()]) }))
      .max(25)
      .optional(),
    options: z.array(optionSchema).max(25).optional(),
  }),
);

const commandSchema = z.looseObject({
  name: z.string().min(1).max(32),
  type: z.number().int().min(1).max(4).optional(),
  description: z.string().max(100).optional(),
  options: z.array(optionSchema).max(25).optional(),
  default_member_permissions: z.string().regex(/^\d+$/).nullish(),
  /** deprecated by Discord in favour of `contexts`; still accepted */
  dm_permission: z.boolean().nullish(),
  // InteractionContextType (0 guild, 1 bot DM, 2 private channel) and ApplicationIntegrationType
  // (0 guild install, 1 user install): at least one, each once (the OpenAPI description's ApplicationCommandCreateRequest)
  contexts: uniqueList([0, 1, 2]),
  integration_types: uniqueList([0, 1]),
  nsfw: z.boolean().nullish(),
});

function uniqueList(allowed: number[]) {
  return z
    .array(
      z
        .number()
        .int()
        .refine((n) => allowed.includes(n), `Value must be one of ${allowed.join(', ')}.`),
    )
    .min(1)
    .refine((items) => new Set(items).size === items.length, 'Items must be unique.')
    .nullish();
}

type CommandBody = z.infer<typeof commandSchema>;

function toCommand(
  context: EmulatorContext,
  body: CommandBody,
  guildId: string | null,
  existing: APIApplicationCommand | undefined,
): APIApplicationCommand {
  const type = body.type ?? ApplicationCommandType.ChatInput;
  if (type === ApplicationCommandType.ChatInput) {
    if (!CHAT_INPUT_NAME.test(body.name) || body.name !== body.name.toLowerCase()) {
      throw fieldError('name', 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    }
    if (!body.description) throw fieldError('description', 'BASE_TYPE_REQUIRED', 'This field is required');
  }
  return {
    id: existing?.id ?? generateSnowflake(),
    application_id: context.application.id,
    ...(guildId ? { guild_id: guildId } : {}),
    version: generateSnowflake(),
    type,
    name: body.name,
    description: body.description ?? '',
    // The option tree was validated by optionSchema; its detailed union is Discord's type.
    options: (body.options ?? []) as APIApplicationCommandOption[],
    default_member_permissions: body.default_member_permissions ?? null,
    // what Discord answers for a command created with `contexts` only: usable in the bot's DMs or not
    dm_permission: body.dm_permission ?? (body.contexts ? body.contexts.includes(1) : true),
    nsfw: body.nsfw ?? false,
    contexts: body.contexts ?? null,
    integration_types: body.integration_types ?? [0],
  };
}

function commandRoutesFor(context: EmulatorContext, base: string, scoped: boolean): RouteDefinition[] {
  const { state } = context;
  const listFor = (params: Record<string, string>) => {
    requireApplication(context, params.applicationId);
    if (scoped) requireGuild(context, params.guildId);
    return { list: state.commandsFor(scoped ? (params.guildId ?? '') : null), guildId: scoped ? (params.guildId ?? null) : null };
  };
  const find = (params: Record<string, string>) => {
    const { list, guildId } = listFor(params);
    const index = list.findIndex((command) => command.id === params.commandId);
    if (index < 0) throw unknownCommand();
    return { list, index, guildId, command: list[index] as APIApplicationCommand };
  };

  return [
    { method: 'GET', path: base, auth: 'bot', bucket: 'commands', handle: ({ params }) => ok(listFor(params).list) },
    {
      method: 'PUT',
      path: base,
      auth: 'bot',
      bucket: 'commands',
      handle: ({ params, body }) => {
        const { list, guildId } = listFor(params);
        const bodies = parseBody(z.array(commandSchema).max(110), body);
        const next = bodies.map((item) =>
          toCommand(
            context,
            item,
            guildId,
            list.find((c) => c.name === item.name && c.type === (item.type ?? 1)),
          ),
        );
        list.splice(0, list.length, ...next);
        state.notifyChange();
        return ok(next);
      },
    },
    {
      method: 'POST',
      path: base,
      auth: 'bot',
      bucket: 'commands',
      handle: ({ params, body }) => {
        const { list, guildId } = listFor(params);
        const item = parseBody(commandSchema, body);
        const index = list.findIndex((c) => c.name === item.name && c.type === (item.type ?? 1));
        const command = toCommand(context, item, guildId, list[index]);
        if (index >= 0) {
          list[index] = command;
          return ok(command);
        }
        list.push(command);
        return created(command);
      },
    },
    { method: 'GET', path: `${base}/:commandId`, auth: 'bot', bucket: 'commands', handle: ({ params }) => ok(find(params).command) },
    {
      method: 'PATCH',
      path: `${base}/:commandId`,
      auth: 'bot',
      bucket: 'commands',
      handle: ({ params, body }) => {
        const { list, index, guildId, command } = find(params);
        const patch = parseBody(commandSchema.partial(), body);
        // The stored command supplies every field the partial patch leaves out; its option types are Discord's, wider than the schema's.
        const updated = toCommand(context, { ...command, ...patch } as CommandBody, guildId, command);
        list[index] = updated;
        return ok(updated);
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:commandId`,
      auth: 'bot',
      bucket: 'commands',
      handle: ({ params }) => {
        const { list, index } = find(params);
        list.splice(index, 1);
        return noContent();
      },
    },
  ];
}

export function commandRoutes(context: EmulatorContext): RouteDefinition[] {
  return [
    ...commandRoutesFor(context, '/applications/:applicationId/commands', false),
    ...commandRoutesFor(context, '/applications/:applicationId/guilds/:guildId/commands', true),
  ];
}
