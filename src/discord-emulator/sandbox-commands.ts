import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  type APIApplicationCommand,
  type APIApplicationCommandBasicOption,
  type APIApplicationCommandOption,
} from 'discord-api-types/v10';
import type { EmulatorContext } from './context';
import { html, type RawHtml } from './html-layout';
import type { SlashCommandInput, SlashOptionValue } from './interaction-driver';
import { hasPermission } from './permissions';

/**
 * The sandbox view's command box: the slash commands the bot registered, as a member of the
 * sandbox guild would find them in Discord's command picker, run as the user chosen in the
 * view. A command with subcommands is offered once per subcommand (`/privacy show`), as
 * Discord's picker lists them. Commands the member may not use (their
 * `default_member_permissions`) are left out, as Discord hides them.
 */

/** One entry of the picker: a command, or one subcommand of it. */
export interface CommandEntry {
  /** what the picker shows and the form sends back: `lookup`, `privacy show`, `group sub name` */
  key: string;
  name: string;
  subcommandGroup?: string;
  subcommand?: string;
  description: string;
  options: APIApplicationCommandBasicOption[];
}

const isSubcommand = (o: APIApplicationCommandOption) => o.type === ApplicationCommandOptionType.Subcommand;
const isGroup = (o: APIApplicationCommandOption) => o.type === ApplicationCommandOptionType.SubcommandGroup;

/** A command's runnable entries: itself, or each of its subcommands (inside groups too). */
function entriesOf(command: APIApplicationCommand): CommandEntry[] {
  const options = command.options ?? [];
  if (!options.some((o) => isSubcommand(o) || isGroup(o))) {
    return [
      { key: command.name, name: command.name, description: command.description, options: options as APIApplicationCommandBasicOption[] },
    ];
  }
  const entries: CommandEntry[] = [];
  for (const option of options) {
    if (option.type === ApplicationCommandOptionType.Subcommand) {
      entries.push({
        key: `${command.name} ${option.name}`,
        name: command.name,
        subcommand: option.name,
        description: option.description,
        options: option.options ?? [],
      });
    } else if (option.type === ApplicationCommandOptionType.SubcommandGroup) {
      for (const sub of option.options ?? []) {
        entries.push({
          key: `${command.name} ${option.name} ${sub.name}`,
          name: command.name,
          subcommandGroup: option.name,
          subcommand: sub.name,
          description: sub.description,
          options: sub.options ?? [],
        });
      }
    }
  }
  return entries;
}

/** The chat-input commands this member sees in the guild, guild commands shadowing global ones, by name. */
export function commandEntries(context: EmulatorContext, userId: string): CommandEntry[] {
  const { state } = context;
  const permissions = state.memberPermissions(userId);
  const byName = new Map<string, APIApplicationCommand>();
  for (const command of [...state.globalCommands, ...state.commandsFor(state.guild.id)]) byName.set(command.name, command);
  return [...byName.values()]
    .filter(
      (c) =>
        c.type === ApplicationCommandType.ChatInput &&
        (c.default_member_permissions === null || hasPermission(permissions, BigInt(c.default_member_permissions))),
    )
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap(entriesOf);
}

const FIELD_PREFIX = 'opt:';

/** The people of the sandbox (bots aside), as the view's pickers name them: 'Display Name (@username)'. */
export function sandboxPeople(context: EmulatorContext): Array<{ value: string; label: string }> {
  return [...context.state.users.values()]
    .filter(({ user }) => !user.bot)
    .map(({ user }) => ({ value: user.id, label: `${user.global_name ?? user.username} (@${user.username})` }));
}

/** The input for one option, named `opt:<option>`; required options are marked and must be filled. */
function renderOptionField(context: EmulatorContext, option: APIApplicationCommandBasicOption): RawHtml {
  const { state } = context;
  const id = `command-option-${option.name}`;
  const name = `${FIELD_PREFIX}${option.name}`;
  const required = option.required === true;
  const label = html`<label for="${id}"><b>${option.name}</b>${required ? ' *' : ''} <span class="muted">${option.description}</span></label>`;
  const blank = required ? html`<option value="">Choose…</option>` : html`<option value="">—</option>`;
  const select = (choices: Array<{ value: string; label: string }>) =>
    html`${label}<select id="${id}" name="${name}" ${required ? html`required` : ''}>${blank}${choices.map((c) => html`<option value="${c.value}">${c.label}</option>`)}</select>`;
  const people = () => sandboxPeople(context);
  const roles = () => state.sortedRoles().map((role) => ({ value: role.id, label: `@${role.name}` }));
  switch (option.type) {
    case ApplicationCommandOptionType.String:
      if (option.choices?.length) return select(option.choices.map((c) => ({ value: String(c.value), label: c.name })));
      return html`${label}<input type="text" id="${id}" name="${name}" ${option.max_length ? html`maxlength="${option.max_length}"` : ''} ${required ? html`required` : ''}>`;
    case ApplicationCommandOptionType.Integer:
    case ApplicationCommandOptionType.Number:
      if (option.choices?.length) return select(option.choices.map((c) => ({ value: String(c.value), label: c.name })));
      return html`${label}<input type="number" id="${id}" name="${name}" ${option.type === ApplicationCommandOptionType.Number ? html`step="any"` : ''} ${option.min_value !== undefined ? html`min="${option.min_value}"` : ''} ${option.max_value !== undefined ? html`max="${option.max_value}"` : ''} ${required ? html`required` : ''}>`;
    case ApplicationCommandOptionType.Boolean:
      return select([
        { value: 'true', label: 'True' },
        { value: 'false', label: 'False' },
      ]);
    case ApplicationCommandOptionType.User:
      return select(people());
    case ApplicationCommandOptionType.Mentionable:
      return select([...people(), ...roles()]);
    case ApplicationCommandOptionType.Role:
      return select(roles());
    case ApplicationCommandOptionType.Channel:
      return select([...state.guild.channels.values()].map((channel) => ({ value: channel.id, label: `# ${channel.name}` })));
    default:
      return html`${label}<p class="muted" id="${id}">Files cannot be sent from the sandbox view.</p>`;
  }
}

/**
 * The box under the messages: a picker (a GET form: choosing reloads the page with the
 * command's options, and works without script), then the chosen command's options and Send.
 */
export function renderCommandBox(
  context: EmulatorContext,
  input: { channelId: string; viewerId: string | undefined; chosen: string | null; path: string },
): RawHtml {
  if (!input.viewerId || !context.state.getMember(input.viewerId)) return html``;
  const entries = commandEntries(context, input.viewerId);
  if (entries.length === 0)
    return html`<section class="command-box" aria-label="Slash commands"><p class="muted">No slash commands are registered for you here yet.</p></section>`;
  const entry = entries.find((e) => e.key === input.chosen);
  return html`<section class="command-box" aria-label="Slash commands">
<form method="get" action="${input.path}" class="command-pick"><label for="command-pick" class="muted">Slash command</label>
<div class="command-row"><select id="command-pick" name="command" data-autosubmit>${entry ? '' : html`<option value="">Choose a command…</option>`}
${entries.map((e) => html`<option value="${e.key}" ${e.key === entry?.key ? html`selected` : ''}>/${e.key} — ${e.description}</option>`)}
</select><button type="submit" class="btn-secondary">Choose</button></div></form>
${
  entry
    ? html`<form method="post" action="${input.path}/command" class="command-options"><input type="hidden" name="command" value="${entry.key}">
${entry.options.map((option) => html`<div class="field">${renderOptionField(context, option)}</div>`)}
<div class="actions"><button type="submit">Send /${entry.key}</button></div></form>`
    : ''
}
</section>`;
}

/** A problem with what the form asked, in words for the person using the sandbox view. */
export class CommandFormError extends Error {}

/** The slash command a posted command-box form asks for, run as `userId` in `channelId`. */
export function readCommandForm(
  context: EmulatorContext,
  input: { userId: string; channelId: string; form: URLSearchParams },
): SlashCommandInput {
  const key = input.form.get('command') ?? '';
  const entry = commandEntries(context, input.userId).find((e) => e.key === key);
  if (!entry) throw new CommandFormError(`/${key} is not a command you can use here.`);
  const options: Record<string, SlashOptionValue> = {};
  for (const option of entry.options) {
    const value = (input.form.get(`${FIELD_PREFIX}${option.name}`) ?? '').trim();
    if (value === '') {
      if (option.required) throw new CommandFormError(`/${entry.key} needs a value for "${option.name}".`);
      continue;
    }
    if (option.type === ApplicationCommandOptionType.Integer || option.type === ApplicationCommandOptionType.Number) {
      const number = Number(value);
      if (!Number.isFinite(number)) throw new CommandFormError(`"${option.name}" must be a number.`);
      options[option.name] = number;
    } else if (option.type === ApplicationCommandOptionType.Boolean) options[option.name] = value === 'true';
    else options[option.name] = value;
  }
  return {
    userId: input.userId,
    channelId: input.channelId,
    name: entry.name,
    subcommand: entry.subcommand,
    subcommandGroup: entry.subcommandGroup,
    options,
  };
}
