import type { AppealQueue } from '../../shared/appeals';
import { standingLabel } from '../../shared/member-states';
import type { AppealsService } from '../../modules/appeals';
import type { CommandHandler, HandlerReply } from '../bot/interaction-dispatcher';
import { auditActorOfInteraction, recordCommandUse, type CommandWriteDeps } from './command-support';

/** How many open appeals the reply names; the rest are counted. */
export const APPEALS_LISTED = 10;

/** The reply of `/appeals`: the oldest open appeals first, without their text (it stays on the dashboard). */
export function appealsSummary(queue: AppealQueue, websiteUrl: string): HandlerReply {
  const link = { label: 'Open the Appeals queue', url: `${websiteUrl}/admin/appeals` };
  if (queue.open === 0) return { content: 'No open appeals.', links: [link] };
  const lines = queue.appeals.slice(0, APPEALS_LISTED).map((a) => {
    const filed = Math.floor(new Date(a.createdAt).getTime() / 1000);
    return `• #${a.id} <@${a.member.discordId}> (${a.member.username}): ${standingLabel(a.standing)}, filed <t:${filed}:R>`;
  });
  const more = queue.open - lines.length;
  const heading = `📨 ${queue.open} open appeal${queue.open === 1 ? '' : 's'}, oldest first:`;
  return { content: [heading, ...lines, ...(more > 0 ? [`…and ${more} more on the dashboard.`] : [])].join('\n'), links: [link] };
}

/** `/appeals` (staff): the open appeals, oldest first, with a link to decide them on the dashboard; the use is recorded like every command's. */
export function appealsCommand(deps: CommandWriteDeps & { appeals: Pick<AppealsService, 'queue'>; websiteUrl: string }): CommandHandler {
  return {
    staffOnly: true,
    async run(interaction) {
      const queue = await deps.appeals.queue();
      await recordCommandUse(deps, {
        actor: auditActorOfInteraction(interaction),
        action: 'command.appeals',
        details: { open: queue.open },
        log: `📨 Staff member ${interaction.user.username} listed the open appeals (${queue.open})`,
      });
      return appealsSummary(queue, deps.websiteUrl);
    },
  };
}
