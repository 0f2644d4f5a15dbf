import type { MembersService } from '../../modules/members';
import type { CommandHandler } from '../bot/interaction-dispatcher';
import { auditActorOfInteraction, recordCommandUse, refuseOnDomainError, targetUser, type CommandWriteDeps } from './command-support';
import { lookupSummary } from './lookup-summary';

/** `/lookup user` (staff): the member's card, and a record of who looked. */
export function lookupCommand(deps: CommandWriteDeps & { members: Pick<MembersService, 'detail'>; websiteUrl: string }): CommandHandler {
  return {
    staffOnly: true,
    async run(interaction) {
      const user = targetUser(interaction);
      const detail = await refuseOnDomainError(() => deps.members.detail(user.id), user);
      await recordCommandUse(deps, {
        actor: auditActorOfInteraction(interaction),
        action: 'command.lookup',
        targetType: 'member',
        targetId: user.id,
        log: `🔎 Staff member ${interaction.user.username} looked up <@${user.id}>`,
      });
      return lookupSummary(detail, deps.websiteUrl);
    },
  };
}
