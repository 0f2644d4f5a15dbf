import { ApplicationFlags, type APIApplication } from 'discord-api-types/v10';
import type { EmulatorContext } from './context';

/** The privileged intents are switched on, as an operator would in the developer portal. */
export const APPLICATION_FLAGS =
  ApplicationFlags.GatewayPresence | ApplicationFlags.GatewayGuildMembers | ApplicationFlags.GatewayMessageContent;

export function toApiApplication(context: EmulatorContext): APIApplication {
  const { application, state } = context;
  return {
    id: application.id,
    name: application.name,
    icon: null,
    description: 'Gatekeeper sandbox application (Discord emulator)',
    bot_public: false,
    bot_require_code_grant: false,
    bot: state.botUser,
    summary: '',
    verify_key: '0'.repeat(64),
    team: null,
    flags: APPLICATION_FLAGS,
    flags_new: String(APPLICATION_FLAGS),
    redirect_uris: [...application.redirectUris],
    interactions_endpoint_url: null,
    approximate_guild_count: 1,
  };
}
