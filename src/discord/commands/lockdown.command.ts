import type { AdmissionService } from '../../modules/admission';
import { HandlerRefusal, type CommandHandler, type HandlerReply } from '../bot/interaction-dispatcher';
import { auditActorOfInteraction } from './command-support';
import { LOCKDOWN_REASON_MAX } from './definitions';

/**
 * `/lockdown on [reason]` and `/lockdown off [reason] [release]` (staff). The switch, its
 * audit row and its log line are written by the admission service in one transaction.
 */
export function lockdownCommand(deps: { admission: Pick<AdmissionService, 'setLockdown'> }): CommandHandler {
  return {
    staffOnly: true,
    async run(interaction): Promise<HandlerReply> {
      const on = interaction.options.getSubcommand() === 'on';
      const reason = interaction.options.getString('reason')?.trim() || null;
      if (reason && reason.length > LOCKDOWN_REASON_MAX)
        throw new HandlerRefusal(`The reason can be at most ${LOCKDOWN_REASON_MAX} characters: nothing changed.`);
      const release = interaction.options.getBoolean('release') === true;
      const result = await deps.admission.setLockdown(auditActorOfInteraction(interaction), { on, reason, release });
      if (on)
        return {
          content: `🔒 Lockdown is on${reason ? ` (${reason})` : ''}. New verifications get Limited Access or wait for review; members verified before are untouched.`,
        };
      return {
        content: `🔓 Lockdown is off.${release ? ` ${result.released} held member${result.released === 1 ? ' was' : 's were'} released.` : ' Members held for review stay held: release them from the dashboard or with `/lockdown off release:true`.'}`,
      };
    },
  };
}
