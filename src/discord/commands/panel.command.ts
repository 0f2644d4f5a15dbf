import { DiscordAPIError, type REST } from '@discordjs/rest';
import { Routes, type APIMessage } from 'discord-api-types/v10';
import type { GuildDirectory } from '../guild-directory';
import { panelMessage } from '../bot/verification-panel';
import { HandlerRefusal, type CommandHandler } from '../bot/interaction-dispatcher';
import { auditActorOfInteraction, recordCommandUse, type CommandWriteDeps } from './command-support';

/** Discord's "Missing Access" and "Missing Permissions". */
const NO_ACCESS_CODES = new Set([50001, 50013]);

/**
 * `/panel [channel]` (staff): posts a fresh verification panel, in the given channel or
 * the configured verification channel (the bot keeps the panel it finds at start-up).
 */
export function panelCommand(
  deps: CommandWriteDeps & { rest: REST; directory: Pick<GuildDirectory, 'channelId'>; websiteUrl: string },
): CommandHandler {
  return {
    staffOnly: true,
    async run(interaction) {
      const channelId = interaction.options.getChannel('channel')?.id ?? (await deps.directory.channelId('verification'));
      let message: APIMessage;
      try {
        message = (await deps.rest.post(Routes.channelMessages(channelId), { body: panelMessage(deps.websiteUrl) })) as APIMessage;
      } catch (error) {
        if (error instanceof DiscordAPIError && NO_ACCESS_CODES.has(Number(error.code))) {
          throw new HandlerRefusal(`I can't post in <#${channelId}>: I need the View Channel and Send Messages permissions there.`);
        }
        throw error;
      }
      await recordCommandUse(deps, {
        actor: auditActorOfInteraction(interaction),
        action: 'command.panel',
        targetType: 'channel',
        targetId: channelId,
        details: { messageId: message.id },
        log: `📌 Staff member ${interaction.user.username} posted the verification panel in <#${channelId}>`,
      });
      return { content: `📌 Posted the verification panel in <#${channelId}>.` };
    },
  };
}
