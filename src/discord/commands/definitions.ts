import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ChannelType,
  InteractionContextType,
  PermissionFlagsBits,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord-api-types/v10';
import { SHARED_NETWORK_LABEL_MAX } from '../../modules/members';
import { standingLabel } from '../../shared/member-states';

/**
 * The slash commands, as typed data apart from their handlers.
 * Staff commands default to members with Manage Server; the configured staff role is
 * also accepted by the dispatcher (server admins can widen access in Discord's settings).
 * Every command is usable in the server only: `contexts: [Guild]` (Discord deprecated
 * `dm_permission` in favour of `contexts`; none of these sends it).
 */
const staffOnly = String(PermissionFlagsBits.ManageGuild);

/** Longest note a command takes (Discord enforces it in the client; the handler checks it again). */
export const NOTE_MAX_LENGTH = 1000;
const userOption = (description: string) =>
  ({ type: ApplicationCommandOptionType.User, name: 'user', description, required: true }) as const;

export const panelCommand = {
  name: 'panel',
  description: 'Post the verification panel',
  type: ApplicationCommandType.ChatInput,
  default_member_permissions: staffOnly,
  contexts: [InteractionContextType.Guild],
  options: [
    {
      type: ApplicationCommandOptionType.Channel,
      name: 'channel',
      description: 'Where to post it (default: the verification channel)',
      channel_types: [ChannelType.GuildText],
      required: false,
    },
  ],
} satisfies RESTPostAPIChatInputApplicationCommandsJSONBody;

export const lookupCommand = {
  name: 'lookup',
  description: "Show a member's verification status, alts and VPN use",
  type: ApplicationCommandType.ChatInput,
  default_member_permissions: staffOnly,
  contexts: [InteractionContextType.Guild],
  options: [userOption('The member to look up')],
} satisfies RESTPostAPIChatInputApplicationCommandsJSONBody;

export const manverifyCommand = {
  name: 'manverify',
  description: 'Verify a member by hand and grant the Verified role',
  type: ApplicationCommandType.ChatInput,
  default_member_permissions: staffOnly,
  contexts: [InteractionContextType.Guild],
  options: [userOption('The member to verify')],
} satisfies RESTPostAPIChatInputApplicationCommandsJSONBody;

export const unverifyCommand = {
  name: 'unverify',
  description: 'Take verification away from a member',
  type: ApplicationCommandType.ChatInput,
  default_member_permissions: staffOnly,
  contexts: [InteractionContextType.Guild],
  options: [userOption('The member to unverify')],
} satisfies RESTPostAPIChatInputApplicationCommandsJSONBody;

export const altStatusCommand = {
  name: 'alt-status',
  description: "Override a member's alt status",
  type: ApplicationCommandType.ChatInput,
  default_member_permissions: staffOnly,
  contexts: [InteractionContextType.Guild],
  options: [
    userOption('The member'),
    {
      type: ApplicationCommandOptionType.String,
      name: 'status',
      description: 'The new status',
      required: true,
      choices: [
        { name: 'No override', value: 'none' },
        { name: standingLabel('suspected_alt'), value: 'suspected' },
        { name: standingLabel('certain_alt'), value: 'certain' },
      ],
    },
  ],
} satisfies RESTPostAPIChatInputApplicationCommandsJSONBody;

export const noteCommand = {
  name: 'note',
  description: 'Add an internal staff note to a member',
  type: ApplicationCommandType.ChatInput,
  default_member_permissions: staffOnly,
  contexts: [InteractionContextType.Guild],
  options: [
    userOption('The member'),
    {
      type: ApplicationCommandOptionType.String,
      name: 'text',
      description: 'The note',
      required: true,
      min_length: 1,
      max_length: NOTE_MAX_LENGTH,
    },
  ],
} satisfies RESTPostAPIChatInputApplicationCommandsJSONBody;

export const sharedNetworkCommand = {
  name: 'shared-network',
  description: 'Manage shared networks (household, school, carrier NAT)',
  type: ApplicationCommandType.ChatInput,
  default_member_permissions: staffOnly,
  contexts: [InteractionContextType.Guild],
  options: [
    {
      type: ApplicationCommandOptionType.Subcommand,
      name: 'mark',
      description: "Mark a member's network as shared: IP-only matches there stop counting",
      options: [
        userOption('A member on that network'),
        {
          type: ApplicationCommandOptionType.String,
          name: 'label',
          description: 'e.g. "school", "family"',
          required: false,
          max_length: SHARED_NETWORK_LABEL_MAX,
        },
      ],
    },
    { type: ApplicationCommandOptionType.Subcommand, name: 'list', description: 'List the shared networks' },
    {
      type: ApplicationCommandOptionType.Subcommand,
      name: 'remove',
      description: "Stop treating a member's network as shared",
      options: [userOption('A member on that network')],
    },
  ],
} satisfies RESTPostAPIChatInputApplicationCommandsJSONBody;

export const privacyCommand = {
  name: 'privacy',
  description: 'See or delete what Gatekeeper stores about you',
  type: ApplicationCommandType.ChatInput,
  contexts: [InteractionContextType.Guild],
  options: [
    {
      type: ApplicationCommandOptionType.Subcommand,
      name: 'show',
      description: 'Show exactly what is stored about you and when it expires',
    },
    { type: ApplicationCommandOptionType.Subcommand, name: 'delete', description: 'Delete every record about you' },
  ],
} satisfies RESTPostAPIChatInputApplicationCommandsJSONBody;

export const LOCKDOWN_REASON_MAX = 200;
const lockdownReason = {
  type: ApplicationCommandOptionType.String,
  name: 'reason',
  description: 'Why (shown to staff and in the logs)',
  required: false,
  max_length: LOCKDOWN_REASON_MAX,
} as const;

export const lockdownCommand = {
  name: 'lockdown',
  description: 'Close the door: new verifications get Limited Access or wait for review',
  type: ApplicationCommandType.ChatInput,
  default_member_permissions: staffOnly,
  contexts: [InteractionContextType.Guild],
  options: [
    { type: ApplicationCommandOptionType.Subcommand, name: 'on', description: 'Start the lockdown', options: [lockdownReason] },
    {
      type: ApplicationCommandOptionType.Subcommand,
      name: 'off',
      description: 'End the lockdown',
      options: [
        lockdownReason,
        {
          type: ApplicationCommandOptionType.Boolean,
          name: 'release',
          description: 'Release the members held for review (default: keep them held)',
          required: false,
        },
      ],
    },
  ],
} satisfies RESTPostAPIChatInputApplicationCommandsJSONBody;

export const appealsCommand = {
  name: 'appeals',
  description: 'List the open appeals, oldest first',
  type: ApplicationCommandType.ChatInput,
  default_member_permissions: staffOnly,
  contexts: [InteractionContextType.Guild],
} satisfies RESTPostAPIChatInputApplicationCommandsJSONBody;

export const COMMANDS = [
  panelCommand,
  lookupCommand,
  manverifyCommand,
  unverifyCommand,
  altStatusCommand,
  noteCommand,
  sharedNetworkCommand,
  privacyCommand,
  lockdownCommand,
  appealsCommand,
];

export const STAFF_COMMANDS = new Set(COMMANDS.filter((c) => 'default_member_permissions' in c).map((c) => c.name));
