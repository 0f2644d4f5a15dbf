import type { REST } from '@discordjs/rest';
import {
  ButtonStyle,
  ComponentType,
  Routes,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type APIEmbed,
} from 'discord-api-types/v10';
import type { ButtonInteraction } from 'discord.js';
import { isAppError } from '../../errors';
import type { Logger } from '../../logger';
import type { AppealsService } from '../../modules/appeals';
import type { DiscordStaff, MembersService } from '../../modules/members';
import { HandlerRefusal, type ButtonRoute, type HandlerReply } from '../bot/interaction-dispatcher';
import { decodeLogButton, HANDLED_ROOM, LOG_BUTTON_PREFIX, type LogAction, type LogButtonTarget } from './log-card-message';

/** The reason a rejection from the logs channel gives the visitor (the appeal page shows it). */
export const CARD_REJECT_REASON = 'Staff reviewed your appeal and kept the decision.';

const HANDLED_NAME = 'Handled';

/** What each action did, as the message's "handled" line and the presser's answer say it. */
const DONE: Record<LogAction, string> = {
  verify: '✅ Verified',
  kick: '⛔ Denied and kicked',
  ban: '🔨 Denied and banned',
  notsame: '🔗 Marked not the same person',
  approve: '✅ Appeal approved',
  reject: '❌ Appeal rejected',
};

export interface LogCardButtonDeps {
  members: Pick<MembersService, 'manualVerify' | 'removeFromServer' | 'detail' | 'dismissAltLink'>;
  appeals: Pick<AppealsService, 'approve' | 'reject'>;
  rest: REST;
  logger: Logger;
  nudgeOutbox?: () => void;
}

/** The staff member pressing, as the services and the audit log see them. */
function presser(interaction: ButtonInteraction): DiscordStaff {
  return { kind: 'discord', discordId: interaction.user.id, username: interaction.user.username };
}

/** A service's "no" in plain words: the button is stale (the record or appeal is gone, or it was already done). */
function refusal(error: unknown, target: LogButtonTarget): unknown {
  if (!isAppError(error) || error.status >= 500) return error;
  if (error.status === 404) {
    const what =
      target.appealId !== undefined && error.message === 'Appeal'
        ? `Appeal #${target.appealId} no longer exists`
        : `<@${target.discordId}> has no verification record any more`;
    return new HandlerRefusal(`${what}: nothing changed.`);
  }
  return new HandlerRefusal(`${error.message}: nothing changed.`);
}

/** Runs the action through the service the dashboard uses, with the Discord user as the actor. */
async function act(deps: LogCardButtonDeps, actor: DiscordStaff, target: LogButtonTarget): Promise<string | null> {
  switch (target.action) {
    case 'verify':
      await deps.members.manualVerify(actor, target.discordId);
      return null;
    case 'kick':
    case 'ban':
      await deps.members.removeFromServer(actor, target.discordId, target.action, { card: target.card });
      return null;
    case 'notsame': {
      const detail = await deps.members.detail(target.discordId);
      const link = detail.alts.find((alt) => alt.discordId === target.mainId);
      if (!link) throw new HandlerRefusal(`<@${target.discordId}> and <@${target.mainId}> are no longer linked: nothing changed.`);
      await deps.members.dismissAltLink(actor, target.discordId, link.linkId);
      return null;
    }
    case 'approve':
      return (await deps.appeals.approve(actor, target.appealId!)).next;
    case 'reject':
      await deps.appeals.reject(actor, target.appealId!, CARD_REJECT_REASON);
      return null;
  }
}

/**
 * The clicked card after the action: its buttons disabled (the dashboard link stays) and a line naming who
 * did what. Row i belongs to embed i (planLogPosts); other cards of the message are left as they were.
 */
export function handledMessage(
  message: { embeds: APIEmbed[]; components: APIActionRowComponent<APIComponentInMessageActionRow>[] },
  customId: string,
  line: string,
) {
  const row = message.components.findIndex((r) => r.components.some((c) => 'custom_id' in c && c.custom_id === customId));
  if (row < 0) return null;
  const components = message.components.map((r, i) =>
    i !== row
      ? r
      : {
          ...r,
          components: r.components.map((c) =>
            c.type === ComponentType.Button && c.style !== ButtonStyle.Link ? { ...c, disabled: true } : c,
          ),
        },
  );
  const embeds = message.embeds.map((e, i) =>
    i !== row
      ? e
      : { ...e, fields: [...(e.fields ?? []), { name: HANDLED_NAME, value: line.slice(0, HANDLED_ROOM - HANDLED_NAME.length) }] },
  );
  return { embeds, components };
}

/** The logs channel's card buttons (staff only; the dispatcher refuses everyone else before this runs). */
export function createLogCardButtons(deps: LogCardButtonDeps): ButtonRoute {
  return {
    prefix: LOG_BUTTON_PREFIX,
    staffOnly: true,
    async handler(interaction): Promise<HandlerReply> {
      const target = decodeLogButton(interaction.customId);
      if (!target) throw new HandlerRefusal('This button is not one Gatekeeper knows: nothing changed.');
      const actor = presser(interaction);
      let next: string | null;
      try {
        next = await act(deps, actor, target);
      } catch (error) {
        throw refusal(error, target);
      }
      deps.nudgeOutbox?.();
      const line = `${DONE[target.action]} by <@${actor.discordId}> (${actor.username})`;
      const edited = handledMessage(
        {
          embeds: interaction.message.embeds.map((e) => e.toJSON()),
          components: interaction.message.components.map((c) => c.toJSON() as APIActionRowComponent<APIComponentInMessageActionRow>),
        },
        interaction.customId,
        line,
      );
      let shown = true;
      if (edited) {
        try {
          await deps.rest.patch(Routes.channelMessage(interaction.channelId, interaction.message.id), {
            body: { ...edited, allowed_mentions: { parse: [] } },
          });
        } catch (error) {
          shown = false;
          deps.logger.warn({ err: error, messageId: interaction.message.id }, 'could not mark the log message as handled');
        }
      }
      const subject = target.appealId !== undefined ? `appeal #${target.appealId} of <@${target.discordId}>` : `<@${target.discordId}>`;
      return {
        content: `${DONE[target.action]}: ${subject}.${next ? ` ${next}` : ''}${shown ? '' : ' (The log message could not be updated.)'}`,
      };
    },
  };
}
